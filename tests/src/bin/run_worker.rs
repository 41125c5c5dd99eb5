//! A host process for the run tests (`tests/tests/run_resume.rs`): each invocation is one
//! request of a conversation, or one human's decision, over a shared store (a SQLite file,
//! or a PostgreSQL URL), with runs and proposals sealed by a fixed key.
//!
//! `run_worker <db> <command> <args…>`, printing one JSON line on stdout. `send` appends
//! what it sent to the file `outbox` beside a SQLite database (in the working directory
//! for PostgreSQL).
//!
//! - `gate <pause|continue>`: a new run gates the batch `c1` (`lookup`, read-only, runs),
//!   `c2` and `c3` (`send`, irreversible: proposed at `Autonomy::ReadOnly`), submits the
//!   proposals, records them in the run, and saves it. Continue style: it sends the batch's
//!   results now (`c2`, `c3` awaiting approval) and marks them delivered. Pause style: it
//!   holds the batch and sends nothing. Prints `{"run", "generation", "proposals",
//!   "sent"}`.
//! - `approve <proposal>`: approves the proposal as the human saw it and applies it,
//!   journaled. Prints `{"result"}`.
//! - `decline <proposal> <reason>`: declines it. Prints `{"result"}`.
//! - `resume <pause|continue> <run> [--no-save]`: resumes the run (claims the newest
//!   copy), gathers the answers from the journal, sends them (the pause style: the held
//!   batch's results when none of its calls is pending; continue: a follow-up of the late
//!   results), marks them delivered and saves the run (`--no-save`: dies before saving, as
//!   a crashed host). Prints `{"generation", "sent", "pending", "message"}`; `sent` is
//!   every tool result the "model" was given: `[call_id, text]` pairs.
//! - `resume-at <run> <generation>`: resumes only the copy at that generation; prints
//!   `{"generation"}` or `{"refused"}`.
//! - `claim <run> <barrier-dir> <parties>`: loads the newest copy, waits until `<parties>`
//!   processes have loaded it (a file each in `<barrier-dir>`), then claims it (saves it
//!   one generation up). Prints `{"claimed": generation}` or `{"refused": message}`.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use toolset::approval::{Approved, ProposalId};
use toolset::consumer::openai_chat;
use toolset::output::ToolReply;
use toolset::prelude::*;
use toolset::request::Request;
use toolset::run::{Run, Runs};
use toolset::store::{RunId, Store};
use toolset::{
    Approvals, Autonomy, Policy, PostgresStore, SealKey, SqliteStore, ToolCall, ToolContext,
    ToolError, tool, toolset,
};

/// The key every process of a test seals with (`tests/tests/run_resume.rs` has it too).
const KEY: [u8; 32] = [42; 32];

/// Where `send` records what it sent: one line per handler run.
struct Outbox {
    file: PathBuf,
}

/// Look up notes on a topic.
#[tool(tier = "read_only")]
async fn lookup(
    /// The topic.
    topic: String,
) -> String {
    format!("notes on {topic}")
}

/// Send a message.
#[tool(tier = "irreversible")]
async fn send(
    outbox: &mut Outbox,
    ctx: &ToolContext,
    /// Who to.
    to: String,
) -> Result<String, ToolError> {
    let key = ctx.idempotency_key().unwrap_or("unjournaled").to_owned();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&outbox.file)?;
    file.write_all(format!("{key} {to}\n").as_bytes())?;
    Ok(format!("sent to {to}"))
}

toolset! {
    /// The conversation's tools.
    RunTools<Outbox> = [lookup, send];
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((db, rest)) = args.split_first() else {
        eprintln!("usage: run_worker <db> <command> <args…>");
        return ExitCode::from(2);
    };
    let outcome = if db.starts_with("postgres") || db.contains("host=") {
        PostgresStore::connect(db)
            .map_err(Into::into)
            .and_then(|store| work(&store, Path::new("."), rest))
    } else {
        let db = Path::new(db);
        let dir = db.parent().unwrap_or(Path::new("."));
        SqliteStore::open(db)
            .map_err(Into::into)
            .and_then(|store| work(&store, dir, rest))
    };
    match outcome {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

type Failure = Box<dyn std::error::Error>;

fn key() -> SealKey {
    SealKey::new(KEY).unwrap_or_else(|_| unreachable!("32 bytes"))
}

fn work<S>(store: &S, dir: &Path, args: &[String]) -> Result<Value, Failure>
where
    S: Store,
{
    let approvals = Approvals::new(store).sealed_with(key());
    let runs = Runs::new(store).sealed_with(key());
    let policy = Policy::<RunTools>::new(Autonomy::ReadOnly);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let mut outbox = Outbox {
        file: dir.join("outbox"),
    };
    let ctx = ToolContext::default();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["gate", style] => {
            let mut run = Run::new();
            let request = Request::new(&policy)
                .activated(run.activations())
                .exposure(run.exposure());
            let plan = request.gate([
                ToolCall::new("c1", "lookup", r#"{"topic":"ann"}"#),
                ToolCall::new("c2", "send", r#"{"to":"ann"}"#),
                ToolCall::new("c3", "send", r#"{"to":"bob"}"#),
            ])?;
            let mut proposals = Vec::new();
            for proposal in plan.proposals() {
                proposals.push(approvals.submit(proposal)?.to_string());
                run.await_approval(proposal);
            }
            let report =
                runtime.block_on(RunTools::apply_journaled(&mut outbox, &ctx, plan, store));
            let sent = if *style == "pause" {
                run.hold(report);
                Vec::new()
            } else {
                run.record(&report);
                let results = report.results();
                // What goes to the provider; then it is delivered.
                let _ = openai_chat::results(&results);
                run.delivered(store)?;
                results
            };
            runs.save(&mut run)?;
            Ok(json!({
                "run": run.id().as_str(),
                "generation": run.generation(),
                "proposals": proposals,
                "sent": pairs(&sent),
            }))
        }
        ["approve", id] => {
            let id = ProposalId::parse(id).ok_or("not a proposal id")?;
            let reviewed = approvals.pending(&id)?.reviewed();
            let Approved::Run(call) = approvals.approve(&reviewed, &Request::new(&policy))? else {
                return Err("send has a handler".into());
            };
            let report = runtime.block_on(call.apply(&mut outbox, &ctx));
            Ok(json!({ "result": pairs(&report.results()) }))
        }
        ["decline", id, reason] => {
            let id = ProposalId::parse(id).ok_or("not a proposal id")?;
            let reviewed = approvals.pending(&id)?.reviewed();
            let reply = approvals.decline(&reviewed, reason)?;
            Ok(json!({ "result": pairs(&[reply]) }))
        }
        ["resume", style, id, rest @ ..] => {
            let id = RunId::parse(id).ok_or("not a run id")?;
            let mut run = runs.resume(&id)?;
            run.collect(store)?;
            let sent = if *style == "pause" {
                match run.pause_results() {
                    Some(results) => {
                        let _ = openai_chat::results(&results);
                        results
                    }
                    None => Vec::new(),
                }
            } else {
                let late = run.late_results();
                if !late.is_empty() {
                    let _ = openai_chat::follow_up(&late);
                }
                late
            };
            let twice = run.delivered(store)?;
            if rest == ["--no-save"] {
                // A host that dies here has given the model its answers and marked them.
                return Ok(json!({
                    "generation": run.generation(),
                    "sent": pairs(&sent),
                    "pending": run.pending().len(),
                    "twice": twice,
                }));
            }
            runs.save(&mut run)?;
            Ok(json!({
                "generation": run.generation(),
                "sent": pairs(&sent),
                "pending": run.pending().len(),
                "twice": twice,
            }))
        }
        ["resume-at", id, generation] => {
            let id = RunId::parse(id).ok_or("not a run id")?;
            let generation: u64 = generation.parse()?;
            match runs.resume_at(&id, generation) {
                Ok(run) => Ok(json!({ "generation": run.generation() })),
                Err(error) => Ok(json!({ "refused": error.to_string() })),
            }
        }
        ["claim", id, barrier, parties] => {
            let id = RunId::parse(id).ok_or("not a run id")?;
            let parties: usize = parties.parse()?;
            let mut run = runs.load(&id)?;
            let barrier = Path::new(barrier);
            std::fs::write(barrier.join(std::process::id().to_string()), "")?;
            let started = Instant::now();
            while std::fs::read_dir(barrier)?.count() < parties {
                if started.elapsed() > Duration::from_secs(30) {
                    return Err("the other claimants never loaded the run".into());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            match runs.save(&mut run) {
                Ok(()) => Ok(json!({ "claimed": run.generation() })),
                Err(error) => Ok(json!({ "refused": error.to_string() })),
            }
        }
        _ => Err(format!("unknown command {args:?}").into()),
    }
}

/// Each result as `[call_id, text]`.
fn pairs(results: &[ToolReply]) -> Vec<(String, String)> {
    results
        .iter()
        .map(|reply| (reply.call_id.clone(), reply.output.text_content()))
        .collect()
}
