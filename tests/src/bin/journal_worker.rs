//! A host process for the effect journal's SIGKILL test (`tests/tests/effect_journal.rs`):
//! recovers what an earlier run left, then applies a program of writing calls over a
//! SQLite store, journaled, delivering each ended result.
//!
//! `journal_worker <db> <dir> <round> <calls>`: `<dir>` holds three append-only files
//! (each line written whole and synced):
//!
//! - `effects`: the external effect, one idempotency key per handler run, written by the
//!   handler before it returns (what the journal must never let happen twice);
//! - `reported`: each call found in doubt at start-up, with what the host decided (`done`
//!   when `effects` shows its key, else `failed`: never re-run on its own);
//! - `delivered`: each ended call's result, sent to the "model" under its key. The sink
//!   knows what it already holds (as a conversation store knows a call id): a result the
//!   journal lists undelivered but the sink has (the process died between sending and
//!   marking) is only marked, not sent again.
//!
//! The program is `<calls>` calls to `effect`, ids `r<round>c<i>`. The first is proposed
//! (gated at `Autonomy::Reversible`), submitted once (its id kept in `proposals`, `<round>
//! <id>`), approved and applied: its approval is its journaled start, under the proposal's
//! id. The others are each gated and applied on their own at
//! `Autonomy::ExternalReversible` (no proposal): a restarted worker gates the same calls
//! again, and the journal refuses those that started before.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolset::approval::{ApprovalError, Approved, ProposalId};
use toolset::prelude::*;
use toolset::request::Request;
use toolset::store::{EndOutcome, Store};
use toolset::{
    Approvals, Autonomy, Policy, SqliteStore, ToolCall, ToolContext, ToolError, tool, toolset,
};

/// Where the handler records its effect.
struct Effects {
    file: PathBuf,
}

/// Appends `line` to `file`, whole, and syncs it.
fn append(file: &Path, line: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    file.write_all(format!("{line}\n").as_bytes())?;
    file.sync_data()
}

/// The lines of `file` (none when it does not exist).
fn lines(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Do something outside: records the call's idempotency key in the effects file.
#[tool(tier = "external_reversible")]
async fn effect(
    effects: &mut Effects,
    ctx: &ToolContext,
    /// What to do.
    note: String,
) -> Result<String, ToolError> {
    let key = ctx
        .idempotency_key()
        .ok_or_else(|| ToolError::failed("no idempotency key: the call is not journaled"))?;
    append(&effects.file, key)?;
    Ok(format!("did {note}"))
}

toolset! {
    /// The effect's tools.
    EffectTools<Effects> = [effect];
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, dir, round, calls] = args.as_slice() else {
        eprintln!("usage: journal_worker <db> <dir> <round> <calls>");
        return ExitCode::from(2);
    };
    let (Ok(round), Ok(calls)) = (round.parse::<u32>(), calls.parse::<u32>()) else {
        eprintln!("the round and the number of calls are numbers");
        return ExitCode::from(2);
    };
    match work(Path::new(db), Path::new(dir), round, calls) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

fn work(db: &Path, dir: &Path, round: u32, calls: u32) -> Result<(), Box<dyn std::error::Error>> {
    let store = SqliteStore::open(db)?;
    let effects = dir.join("effects");
    let reported = dir.join("reported");
    let delivered = dir.join("delivered");
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as u64)
    };
    // Recovery: each call in doubt is reported and decided by what the outside shows.
    let done: HashSet<String> = lines(&effects).into_iter().collect();
    for entry in store.in_doubt()? {
        let happened = done.contains(&entry.key);
        append(
            &reported,
            &format!("{} {}", entry.key, if happened { "done" } else { "failed" }),
        )?;
        let marked = if happened {
            store.mark_done(&entry.key, now())?
        } else {
            store.mark_failed(&entry.key, now())?
        };
        match marked {
            EndOutcome::Ended => {}
            other => return Err(format!("marking {} in doubt: {other}", entry.key).into()),
        }
    }
    deliver(&store, &delivered, now())?;
    // The program.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let mut state = Effects { file: effects };
    let ctx = ToolContext::default();
    if calls > 0 {
        approve_first(&store, dir, round, &runtime, &mut state, &ctx)?;
        deliver(&store, &delivered, now())?;
    }
    for i in 1..calls {
        let call = ToolCall::new(
            format!("r{round}c{i}"),
            "effect",
            format!(r#"{{"note":"round {round} call {i}"}}"#),
        );
        let plan = EffectTools::gate([call], Autonomy::ExternalReversible)?;
        let report = runtime.block_on(EffectTools::apply_journaled(&mut state, &ctx, plan, &store));
        for entry in report.entries() {
            if let Some(journal) = &entry.journal
                && let Some(problem) = &journal.problem
                && !problem.contains("started before")
            {
                return Err(format!("the journal failed: {problem}").into());
            }
        }
        deliver(&store, &delivered, now())?;
    }
    Ok(())
}

/// The round's first call, which needs a human: proposed and submitted once (its id
/// recorded in `proposals`, `<round> <id>`), then approved and applied journaled, unless it
/// was resolved before (it ran, or it is in doubt and recovery resolved it).
fn approve_first(
    store: &SqliteStore,
    dir: &Path,
    round: u32,
    runtime: &tokio::runtime::Runtime,
    state: &mut Effects,
    ctx: &ToolContext,
) -> Result<(), Box<dyn std::error::Error>> {
    let approvals = Approvals::new(store);
    let proposals = dir.join("proposals");
    let known = lines(&proposals).into_iter().find_map(|line| {
        let (at, id) = line.split_once(' ')?;
        (at == round.to_string()).then(|| ProposalId::parse(id))?
    });
    let id = match known {
        Some(id) => id,
        None => {
            let call = ToolCall::new(
                format!("r{round}c0"),
                "effect",
                format!(r#"{{"note":"round {round} call 0"}}"#),
            );
            let plan = EffectTools::gate([call], Autonomy::Reversible)?;
            let proposal = plan
                .proposals()
                .first()
                .ok_or("the call was not proposed")?;
            let id = approvals.submit(proposal)?;
            append(&proposals, &format!("{round} {id}"))?;
            id
        }
    };
    let reviewed = match approvals.pending(&id) {
        Ok(proposal) => proposal.reviewed(),
        Err(ApprovalError::AlreadyResolved(_)) => return Ok(()),
        Err(error) => return Err(error.into()),
    };
    let policy = Policy::<EffectTools>::new(Autonomy::ReadOnly);
    let Approved::Run(call) = approvals.approve(&reviewed, &Request::new(&policy))? else {
        return Err("effect has a handler".into());
    };
    runtime.block_on(call.apply(state, ctx));
    Ok(())
}

/// Sends every ended, undelivered result to the sink (unless it holds it already) and
/// marks it delivered; a mark refused means someone else delivered it.
fn deliver(store: &SqliteStore, sink: &Path, at_ms: u64) -> Result<(), Box<dyn std::error::Error>> {
    let held: HashSet<String> = lines(sink)
        .iter()
        .filter_map(|line| line.split(' ').next().map(str::to_owned))
        .collect();
    for entry in store.undelivered()? {
        let reply = entry
            .reply()
            .ok_or_else(|| format!("the result of {} is unreadable", entry.key))?;
        if !held.contains(&entry.key) {
            append(sink, &format!("{} {}", entry.key, reply.call_id))?;
        }
        if !store.mark_delivered(&entry.key, at_ms)? {
            return Err(format!("{} was marked delivered by someone else", entry.key).into());
        }
    }
    Ok(())
}
