//! The effect journal after a crash: `crash-demo` kills a process in the middle of a
//! journaled call, `in-doubt` lists what was cut off, `resolve` lets the user decide.
//!
//! A call that is not read-only is journaled before its handler starts and after it ends.
//! A process killed in between leaves the call *in doubt*: its effect may or may not have
//! happened. toolset never runs it again on its own; the host is told, with the call's
//! idempotency key (what an external API that deduplicates would be given), and decides:
//! it happened (`done`), it did not (`failed`), or run it again under the same key
//! (`rerun`, checked by the gate again first).

use crate::show;
use inbox_agent::{HALTED, Inbox, InboxTools};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};
use toolset::driver::Verdict;
use toolset::prelude::*;
use toolset::store::{JournalEntry, Store};
use toolset::{Approvals, Autonomy, Driver, SqliteStore, ToolCall, ToolContext};

/// Milliseconds since the Unix epoch, as the journal keeps time.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// `crash-demo`: runs the child below in a process of its own, kills it (SIGKILL) inside
/// the handler, then does what a host does when it starts again: lists the calls in doubt.
pub fn demo(db: &Path) -> Result<(), String> {
    show::heading("Simulated crash");
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    let mut child = Command::new(exe)
        .arg("--db")
        .arg(db)
        .arg("crash-child")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| format!("the child process did not start: {error}"))?;
    let stdout = child.stdout.take().ok_or("the child has no stdout")?;
    let mut halted = false;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|error| error.to_string())?;
        println!("child: {line}");
        if line.starts_with(HALTED) {
            halted = true;
            break;
        }
    }
    // Killed mid-call: no unwinding, no journal end, as if the power went out.
    let _ = child.kill();
    let status = child.wait().map_err(|error| error.to_string())?;
    if !halted {
        return Err(format!(
            "the child ended ({status}) before reaching its handler"
        ));
    }
    println!("Killed the child inside the handler ({status}).");
    in_doubt(
        &SqliteStore::open(db).map_err(|error| error.to_string())?,
        db,
    )
}

/// `crash-child`: one journaled write, an archive of item 2, under a call id of its own
/// run; its handler halts once the call's start is in the journal, for `demo` to kill it.
pub async fn child(approvals: &Approvals<&SqliteStore>) -> Result<(), String> {
    let id = format!("call_crash-{:06x}", now_ms() & 0xff_ffff);
    let call = ToolCall::new(id, "archive", r#"{"id":2}"#);
    println!("{} archive({}) runs, journaled", call.id, call.arguments);
    let plan = InboxTools::gate([call], Autonomy::Reversible).map_err(|error| error.to_string())?;
    let mut inbox = Inbox::sample().halting_before_change();
    let report =
        InboxTools::apply_journaled(&mut inbox, &ToolContext::default(), plan, approvals.store())
            .await;
    Err(format!(
        "the handler was to halt, and returned: {:?}",
        report.results()
    ))
}

/// `in-doubt`: every call started and never ended, with the commands that resolve it, and
/// how many ended calls' results were never delivered to the model.
pub fn in_doubt(store: &SqliteStore, db: &Path) -> Result<(), String> {
    let entries = store.in_doubt().map_err(|error| error.to_string())?;
    let undelivered = store.undelivered().map_err(|error| error.to_string())?;
    show::heading(&format!("Calls in doubt in {}", db.display()));
    println!(
        "(Ended calls whose result the model has not been sent: {}.)",
        undelivered.len()
    );
    if entries.is_empty() {
        println!("None.");
        return Ok(());
    }
    println!(
        "Started, never ended: each may or may not have had its effect. None is run again on its own."
    );
    for entry in &entries {
        print_entry(entry);
    }
    let key = &entries[0].key;
    println!(
        "Check the effect (hand the key to the API that made it), then decide:\n  cargo run -p inbox-agent -- --db {} resolve {key} done|failed|rerun",
        db.display()
    );
    Ok(())
}

/// One entry of the journal, as the user deciding sees it.
fn print_entry(entry: &JournalEntry) {
    let seconds = now_ms().saturating_sub(entry.started_at_ms) / 1000;
    println!(
        "- key {}: {} {}({}), tier {}, started {seconds} s ago, attempt {}",
        entry.key, entry.call.id, entry.call.name, entry.call.arguments, entry.tier, entry.attempts
    );
}

/// `resolve <key> done|failed|rerun`: ends (or re-runs) the call in doubt under `key`
/// through the driver (a re-run checked again under its policy first), then delivers what
/// the model is told to it once, as a follow-up message.
pub async fn resolve(
    driver: &Driver<InboxTools, SqliteStore>,
    key: &str,
    verdict: Verdict,
) -> Result<(), String> {
    let store = driver.store();
    let entry = store
        .entry(key)
        .map_err(|error| error.to_string())?
        .ok_or_else(|| format!("the journal has no call under the key {key}"))?;
    if !entry.in_doubt() {
        return Err(format!(
            "{key} is not in doubt: it ended ({}); nothing to resolve",
            entry.end.as_ref().map_or("?", |end| end.ending.as_str())
        ));
    }
    show::heading(&format!("Resolving {key}"));
    print_entry(&entry);
    // This process starts from the sample inbox: the example keeps no inbox on disk.
    let mut inbox = Inbox::sample();
    let settled = driver
        .resolve_in_doubt(&entry, verdict, &mut inbox, &ToolContext::default())
        .await
        .map_err(|error| error.to_string())?;
    match (verdict, &settled.report) {
        (Verdict::Done, _) => println!("Marked done: the effect happened."),
        (Verdict::Failed, _) => println!("Marked failed: the effect did not happen."),
        (Verdict::Rerun, Some(report)) => {
            println!("Ran again under the same key:");
            for (call, outcome) in report.outcomes() {
                show::outcome(&call.id, &call.name, outcome);
            }
        }
        (Verdict::Rerun, None) => println!("Handed to the host again under the same key."),
    }
    println!("What the model is told, once:");
    show::messages(&[toolset::consumer::openai_chat::follow_up(&[settled.told])]);
    store
        .mark_delivered(key, now_ms())
        .map_err(|error| error.to_string())?;
    Ok(())
}
