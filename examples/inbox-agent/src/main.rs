//! The inbox agent, offline: a scripted model drives the real loop of request → gate →
//! proposals → apply → tool results, printing each step. One deferred tool (`add_label`)
//! is not listed at first: the model finds it with `tool_search`, and it is offered from
//! the next request on.
//!
//! Run it with `cargo run -p inbox-agent`; add `-- --stream` to replay the model's
//! turns as streamed responses, whose calls are assembled and checked as they arrive, and
//! `-- --trace` to print the `tracing` spans toolset records (each call's `execute_tool`
//! span, the gate's) as each one closes.
//!
//! The conversation's tool state is one [`Run`] (its activations, what its calls have
//! read, the proposals it waits on, its journaled calls), kept in a SQLite file
//! (`--db <path>`, by default in the system's temporary directory): each request resumes
//! it and saves it back. `search` and `read_item` read the user's private mail and text
//! others wrote, so the gate holds the model's `forward` (which sends outside) for the
//! user whatever the autonomy, and says why (the lethal-trifecta rule).
//!
//! A proposal the user does not answer at once waits in the same file; a second
//! invocation, `cargo run -p inbox-agent -- --run <run id> approve <id>` (or
//! `decline <id> [reason]`), resolves it once, runs it, resumes the saved run and gives
//! the model the late result once, as a follow-up message; `--run <run id> resume` shows
//! that nothing is given twice. Without `--run`, the late result is printed directly.
//!
//! Every call that is not read-only is journaled in the same file before its handler
//! starts and after it ends (`apply_journaled`), and its result marked delivered once sent.
//! `-- crash-demo` kills a process inside a journaled call and lists the call it left in
//! doubt; `-- in-doubt` lists them again, and `-- resolve <key> done|failed|rerun` decides.

mod crash;
mod scripted_model;
mod show;
mod streamed;

use inbox_agent::{Inbox, InboxTools, InboxToolsCall};
use scripted_model::{Reply, ScriptedModel};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use toolset::consumer::{Format, openai_chat};
use toolset::prelude::*;
use toolset::store::Journal;
use toolset::store::RunId;
use toolset::{
    Approvals, Approved, Autonomy, ProposalId, Report, Request, Run, Runs, SqliteStore, ToolCall,
    ToolContext,
};

/// How long a proposal stays approvable.
const PROPOSAL_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// What the command line asks for.
enum Command {
    /// The scripted conversation.
    Run { streaming: bool },
    /// Approve the waiting proposal, run it, and print its late result.
    Approve(ProposalId),
    /// Decline the waiting proposal, with a reason for the model.
    Decline(ProposalId, String),
    /// Resume the saved run and give the model what it has not read yet.
    Resume,
    /// Kill a child process inside a journaled call, then list the calls in doubt.
    CrashDemo,
    /// The crash demo's child: one journaled call whose handler halts to be killed.
    CrashChild,
    /// List the calls in doubt.
    InDoubt,
    /// Decide a call in doubt, by its idempotency key.
    Resolve(String, crash::Decision),
}

const USAGE: &str = "usage: inbox-agent [--db <path>] [--run <run id>] [--trace] [--stream | approve <id> | decline <id> [reason] | resume | crash-demo | in-doubt | resolve <key> done|failed|rerun]";

/// The command line: what to do, the database, the saved run (`--run`), and `--trace`.
struct Args {
    command: Command,
    db: PathBuf,
    run: Option<RunId>,
    tracing: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut db = std::env::temp_dir().join("inbox-agent-proposals.db");
    let mut command = Command::Run { streaming: false };
    let mut tracing = false;
    let mut run = None;
    let id = |text: Option<String>| {
        let text = text.ok_or_else(|| format!("a proposal id is missing; {USAGE}"))?;
        ProposalId::parse(&text).ok_or_else(|| {
            format!("{text:?} is not a proposal id (32 hex digits, as the run printed it)")
        })
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stream" => command = Command::Run { streaming: true },
            "--trace" => tracing = true,
            "--db" => {
                db = args
                    .next()
                    .map(PathBuf::from)
                    .ok_or_else(|| format!("--db needs a path; {USAGE}"))?;
            }
            "--run" => {
                let text = args
                    .next()
                    .ok_or_else(|| format!("--run needs a run id; {USAGE}"))?;
                run =
                    Some(RunId::parse(&text).ok_or_else(|| {
                        format!("{text:?} is not a run id, as the run printed it")
                    })?);
            }
            "resume" => command = Command::Resume,
            "approve" => command = Command::Approve(id(args.next())?),
            "decline" => {
                let id = id(args.next())?;
                let reason = args.next().unwrap_or_else(|| "the user said no".to_owned());
                command = Command::Decline(id, reason);
            }
            "crash-demo" => command = Command::CrashDemo,
            "crash-child" => command = Command::CrashChild,
            "in-doubt" => command = Command::InDoubt,
            "resolve" => {
                let key = args
                    .next()
                    .ok_or_else(|| format!("resolve needs a key; {USAGE}"))?;
                let decision = args
                    .next()
                    .as_deref()
                    .and_then(crash::Decision::parse)
                    .ok_or_else(|| format!("resolve needs done, failed or rerun; {USAGE}"))?;
                command = Command::Resolve(key, decision);
            }
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    if matches!(command, Command::Resume) && run.is_none() {
        return Err(format!("resume needs --run <run id>; {USAGE}"));
    }
    Ok(Args {
        command,
        db,
        run,
        tracing,
    })
}

fn open_approvals(db: &PathBuf) -> Result<Approvals<SqliteStore>, String> {
    let store = SqliteStore::open(db).map_err(|error| error.to_string())?;
    Ok(Approvals::new(store).expiring_after(PROPOSAL_LIFETIME))
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let Args {
        command,
        db,
        run,
        tracing,
    } = parse_args()?;
    if tracing {
        print_spans();
    }
    let approvals = open_approvals(&db)?;
    // The conversation's tool state, saved in the same file between requests. (Seal both,
    // `sealed_with(key)`, when anything but this host can write the file.)
    let runs = Runs::new(approvals.store());
    match command {
        Command::Run { streaming } => {
            conversation(streaming, tracing, &approvals, &runs, &db).await
        }
        Command::Approve(id) => approve(&approvals, &runs, &id, run.as_ref()).await,
        Command::Decline(id, reason) => {
            // What the human declines is the proposal as shown to them.
            let shown = approvals.pending(&id).map_err(|error| error.to_string())?;
            let result = approvals
                .decline(&shown.sign(), &reason)
                .map_err(|error| error.to_string())?;
            println!("Declined {id} ({} {}).", result.call_id, result.name);
            match &run {
                Some(run) => deliver(approvals.store(), &runs, run),
                None => {
                    follow_up(&[result]);
                    Ok(())
                }
            }
        }
        Command::Resume => deliver(approvals.store(), &runs, run.as_ref().expect("checked")),
        Command::CrashDemo => crash::demo(&db),
        Command::CrashChild => crash::child(&approvals).await,
        Command::InDoubt => crash::in_doubt(approvals.store(), &db),
        Command::Resolve(key, decision) => crash::resolve(&approvals, &key, decision).await,
    }
}

/// The second invocation: the user approves a proposal that waited in the database; it
/// runs once, journaled, and its late result goes to the model as a follow-up (the model
/// was told "awaiting approval" and went on: the continue style), through the saved run
/// when `--run` names it.
async fn approve(
    approvals: &Approvals<SqliteStore>,
    runs: &Runs<&SqliteStore>,
    id: &ProposalId,
    run: Option<&RunId>,
) -> Result<(), String> {
    let proposal = approvals.pending(id).map_err(|error| error.to_string())?;
    show::heading(&format!("Proposal {id}"));
    show::proposal(&proposal);
    let policy = InboxTools::policy(Autonomy::Reversible);
    // The request in force now: the run's, as saved, when it is named.
    let saved = match run {
        Some(id) => Some(runs.load(id).map_err(|error| error.to_string())?),
        None => None,
    };
    let mut request = Request::new(&policy);
    if let Some(saved) = &saved {
        request = request
            .activated(saved.activations())
            .exposure(saved.exposure());
    }
    let approved = approvals
        .approve(&proposal.sign(), &request)
        .map_err(|error| error.to_string())?;
    match approved {
        Approved::Run(call) => {
            // This process starts from the sample inbox: the example keeps no inbox on disk.
            let mut inbox = Inbox::sample();
            // Journaled in the approvals' store, which recorded its start.
            let report = call.apply(&mut inbox, &ToolContext::default()).await;
            println!("\nUser approved {}; it ran:", proposal.call().id);
            for (call, outcome) in report.outcomes() {
                show::outcome(&call.id, &call.name, outcome);
            }
            match run {
                // The run gathers the journaled result and gives it to the model once.
                Some(run) => deliver(approvals.store(), runs, run),
                None => {
                    follow_up(&report.results());
                    // Sent: the journal delivers each result once.
                    mark_delivered(approvals.store(), &report)
                }
            }
        }
        Approved::Handoff { call, .. } | Approved::RuntimeHandoff { call, .. } => {
            // Ended in the journal as handed over: the host carries it out.
            println!("\nUser approved {}: handed to the host.", call.id);
            Ok(())
        }
    }
}

/// Marks the results of `report`'s journaled calls delivered, once they were sent.
fn mark_delivered(store: &SqliteStore, report: &Report) -> Result<(), String> {
    for key in report.journaled_keys() {
        store
            .mark_delivered(key, crash::now_ms())
            .map_err(|error| error.to_string())?;
    }
    Ok(())
}

/// Resumes the saved run `id` (claiming it: a copy resumed elsewhere since is refused),
/// gathers the answers other processes left in the journal for its pending calls, gives
/// them to the model as a follow-up, marks them delivered and saves the run again.
fn deliver(store: &SqliteStore, runs: &Runs<&SqliteStore>, id: &RunId) -> Result<(), String> {
    let mut run = runs.resume(id).map_err(|error| error.to_string())?;
    let gathered = run.collect(store).map_err(|error| error.to_string())?;
    println!("\nResumed run {id} (generation {}).", run.generation());
    if gathered == 0 {
        println!("Nothing new for the model.");
    } else {
        follow_up(&run.late_results());
    }
    run.delivered(store).map_err(|error| error.to_string())?;
    save(runs, &mut run)
}

/// Saves `run` over the copy it was resumed from, and says so.
fn save(runs: &Runs<&SqliteStore>, run: &mut Run) -> Result<(), String> {
    runs.save(run).map_err(|error| error.to_string())?;
    println!(
        "Run saved (generation {}), waiting on {} proposal(s).",
        run.generation(),
        run.pending().len()
    );
    Ok(())
}

/// Prints the follow-up message that delivers late results to the model.
fn follow_up(late: &[toolset::ToolReply]) {
    println!("Follow-up message for the model:");
    show::messages(&[openai_chat::follow_up(late)]);
}

async fn conversation(
    streaming: bool,
    tracing: bool,
    approvals: &Approvals<SqliteStore>,
    runs: &Runs<&SqliteStore>,
    db: &std::path::Path,
) -> Result<(), String> {
    show::heading("Tool list generated from the #[tool] declarations");
    show::tool_list(InboxTools::specs());
    // A host starting up looks for calls an earlier crash cut off, before any call runs.
    let in_doubt = approvals
        .store()
        .in_doubt()
        .map_err(|error| error.to_string())?;
    if !in_doubt.is_empty() {
        println!(
            "\nNote: {} call(s) in doubt from an earlier crash in {}: cargo run -p inbox-agent -- --db {} in-doubt",
            in_doubt.len(),
            db.display(),
            db.display()
        );
    }

    let mut inbox = Inbox::sample();
    // With --trace, the spans show each call's arguments and result too: fine for this
    // sample inbox; a real host turns it on only where its traces are kept safe.
    let ctx = ToolContext::default().with_traced_content(tracing);
    let mut model = ScriptedModel::new(streaming);
    let mut conversation = vec![json!({
        "role": "user",
        "content": "Sort out my inbox: set real deadlines, archive the digest, and answer Ana."
    })];
    // The agent may run reads and reversible writes alone; anything more needs the user.
    let autonomy = Autonomy::Reversible;
    let policy = InboxTools::policy(autonomy);
    // The conversation's tool state: what its searches activated, what its calls have read
    // (the gate's lethal-trifecta rule), the proposals it waits on, its journaled calls.
    // Between requests it lives in the database only: each request resumes it and saves it
    // back, as it would on a host whose requests land on any process.
    let mut run = Run::new();
    runs.save(&mut run).map_err(|error| error.to_string())?;
    let run_id = run.id().clone();
    println!("\nRun {run_id} saved in {}.", db.display());
    // The tools the conversation's history names.
    let mut history: Vec<String> = Vec::new();
    let mut offered_before: Vec<String> = Vec::new();

    while let Some(response) = model.respond(&conversation) {
        let mut run = runs.resume(&run_id).map_err(|error| error.to_string())?;
        // One request: its tool list (what a live agent sends) and its gate decide together.
        let request = Request::new(&policy)
            .format(Format::OpenAiChat)
            .activated(run.activations())
            .exposure(run.exposure())
            .history(&history);
        let _tools_to_send = request.tool_list();
        let offered = request.offered();
        if offered != offered_before {
            println!("\nThis request offers: {}", offered.join(", "));
            offered_before = offered.iter().map(|name| (*name).to_owned()).collect();
        }
        let (file, reply) = response?;
        let (message, calls) = match reply {
            Reply::Completion(response) => {
                let message = response
                    .pointer("/choices/0/message")
                    .cloned()
                    .ok_or_else(|| format!("script/{file} has no choices[0].message"))?;
                let calls =
                    ToolCall::from_openai_chat(&message).map_err(|error| error.to_string())?;
                (message, calls)
            }
            Reply::Stream(body) => {
                show::heading(&format!("Model streams its calls ({file})"));
                let calls = streamed::replay(file, &body, autonomy)?;
                (streamed::assistant_message(&calls), calls)
            }
        };
        conversation.push(message.clone());
        if calls.is_empty() {
            show::heading(&format!("Model's answer ({file})"));
            println!("{}", message["content"].as_str().unwrap_or_default());
            break;
        }

        show::heading(&format!("Model calls {} tool(s) ({file})", calls.len()));
        for call in &calls {
            println!("- {} {}({})", call.id, call.name, call.arguments);
        }
        history.extend(calls.iter().map(|call| call.name.clone()));

        let plan = match request.gate(calls) {
            Ok(plan) => plan,
            Err(rejected) => {
                println!("\nThe gate rejected the whole program; nothing ran:");
                for problem in rejected.problems() {
                    println!(
                        "- {} {}: {}",
                        problem.call_id, problem.name, problem.message
                    );
                }
                let results = tool_messages(&rejected.results());
                println!("Tool results sent back so the model can retry:");
                show::messages(&results);
                conversation.extend(results);
                save(runs, &mut run)?;
                continue;
            }
        };

        if plan.has_proposals() {
            println!("\nProposals for the user (autonomy: {autonomy:?}):");
            for proposal in plan.proposals() {
                show::proposal(proposal);
            }
        }
        let proposals = plan.proposals().to_vec();

        // Journaled in the database the proposals wait in: each write's start before its
        // handler runs, its end after.
        let store = approvals.store();
        let report = InboxTools::apply_journaled(&mut inbox, &ctx, plan, store).await;
        println!("\nOutcomes:");
        for (call, outcome) in report.outcomes() {
            show::outcome(&call.id, &call.name, outcome);
        }
        let results = tool_messages(&report.results());
        println!("Tool results sent back:");
        show::messages(&results);
        conversation.extend(results);
        let (read_before, activated_before) =
            (run.exposure().clone(), run.activations().names().len());
        run.record(&report);
        // Sent: each journaled result is marked delivered, once.
        run.delivered(store).map_err(|error| error.to_string())?;
        let exposure = run.exposure();
        if *exposure != read_before {
            println!(
                "The run has now read private data (from {}) and untrusted content (from {}).",
                none_yet(exposure.private_from()),
                none_yet(exposure.untrusted_from())
            );
        }
        let activated = run.activations().names();
        if activated.len() > activated_before {
            println!(
                "Activated for the next request: {}",
                activated[activated_before..].join(", ")
            );
        }

        // Each proposal waits in the store for the user. The reply is approved at once,
        // exactly as shown; anything else waits for a second invocation.
        for proposal in &proposals {
            let id = approvals
                .submit(proposal)
                .map_err(|error| error.to_string())?;
            run.await_approval(proposal);
            if !proposal.is_propose_only() {
                println!(
                    "\n{} waits for the user in {} as proposal {id}.\nApprove it with: cargo run -p inbox-agent -- --db {} --run {run_id} approve {id}",
                    proposal.call().id,
                    db.display(),
                    db.display()
                );
                continue;
            }
            let approval = proposal.sign();
            match approvals
                .approve(&approval, &Request::new(&InboxTools::policy(autonomy)))
                .map_err(|error| error.to_string())?
            {
                Approved::Handoff {
                    args: InboxToolsCall::SendReply(reply),
                    ..
                } => {
                    println!(
                        "\nUser approved {}: the host sends the reply to {}.",
                        proposal.call().id,
                        reply.to
                    );
                    // Approving ended it in the journal as handed to the host; the run
                    // gathers that answer and the model is told once.
                    run.collect(store).map_err(|error| error.to_string())?;
                    let message = openai_chat::follow_up(&run.late_results());
                    show::messages(std::slice::from_ref(&message));
                    conversation.push(message);
                    run.delivered(store).map_err(|error| error.to_string())?;
                }
                Approved::Handoff { call, .. } | Approved::RuntimeHandoff { call, .. } => {
                    println!("\nUser approved {}: handed to the host.", call.id)
                }
                Approved::Run(call) => {
                    let report = call.apply(&mut inbox, &ctx).await;
                    for (call, outcome) in report.outcomes() {
                        show::outcome(&call.id, &call.name, outcome);
                    }
                    run.record(&report);
                    run.delivered(store).map_err(|error| error.to_string())?;
                }
            }
        }
        save(runs, &mut run)?;
    }

    show::heading("Inbox afterwards");
    for item in &inbox.items {
        let due = item.due.as_deref().unwrap_or("-");
        let archived = if item.archived { " (archived)" } else { "" };
        let labels = if item.labels.is_empty() {
            String::new()
        } else {
            format!(" [{}]", item.labels.join(", "))
        };
        println!(
            "- #{} {:<18} due {due}{archived}{labels}",
            item.id, item.subject
        );
    }
    Ok(())
}

/// The tools named, or "none yet".
fn none_yet(tools: &[String]) -> String {
    if tools.is_empty() {
        "none yet".to_owned()
    } else {
        tools.join(", ")
    }
}

/// The `role: "tool"` messages answering a batch, one per call, to append to the
/// conversation after the assistant message that made the calls.
fn tool_messages(results: &[toolset::ToolReply]) -> Vec<serde_json::Value> {
    match openai_chat::results(results) {
        serde_json::Value::Array(messages) => messages,
        other => vec![other],
    }
}

/// Prints every span toolset records when it closes, with its fields (the OpenTelemetry
/// attribute names), on stdout between the agent's own lines.
fn print_spans() {
    use tracing_subscriber::fmt::format::FmtSpan;
    tracing_subscriber::fmt()
        .with_writer(std::io::stdout)
        .with_span_events(FmtSpan::CLOSE)
        .with_target(false)
        .without_time()
        .init();
}
