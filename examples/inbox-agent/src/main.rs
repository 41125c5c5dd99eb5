//! The inbox agent, offline: a scripted model drives the real loop through toolset's
//! [`Driver`], printing each step: each request's tools and late results
//! (`next_request`), the model's calls gated as one program, proposed, run and answered
//! (`respond_calls`). One deferred tool (`add_label`) is not listed at first: the model
//! finds it with `tool_search`, and it is offered from the next request on.
//!
//! Run it with `cargo run -p inbox-agent`; add `-- --stream` to replay the model's
//! turns as streamed responses, whose calls are assembled and checked as they arrive, and
//! `-- --trace` to print the `tracing` spans toolset records (each call's `execute_tool`
//! span, the gate's) as each one closes.
//!
//! The conversation's tool state is one [`Run`] (its activations, what its calls have
//! read, the proposals it waits on, its journaled calls), kept by the driver in a SQLite
//! file (`--db <path>`, by default in the system's temporary directory): each request
//! resumes it and saves it back. `search` and `read_item` read the user's private mail
//! and text others wrote, so the gate holds the model's `forward` (which sends outside)
//! for the user whatever the autonomy, and says why (the lethal-trifecta rule).
//!
//! A proposal the user does not answer at once waits in the same file; a second
//! invocation, `cargo run -p inbox-agent -- --run <run id> approve <id>` (or
//! `decline <id> [reason]`), resolves it once, runs it, resumes the saved run and gives
//! the model the late result once, as a follow-up message; `--run <run id> resume` shows
//! that nothing is given twice.
//!
//! Every call that is not read-only is journaled in the same file before its handler
//! starts and after it ends, and its result marked delivered once sent. `-- crash-demo`
//! kills a process inside a journaled call and lists the call it left in doubt;
//! `-- in-doubt` lists them again, and `-- resolve <key> done|failed|rerun` decides.
//!
//! `-- console` serves the same decisions as a web page on loopback (toolset's approval
//! console): what waits, the calls in doubt, a run; it prints the URL with its token.

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
use toolset::approval::{Handoff, ProposalId};
use toolset::consumer::Format;
use toolset::driver::{Resolved, Verdict};
use toolset::prelude::*;
use toolset::run::Run;
use toolset::store::{RunId, Store};
use toolset::{Autonomy, Driver, SqliteStore, ToolCall, ToolContext};

/// How long a proposal stays approvable.
const PROPOSAL_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// What the agent may do without the user: reads and reversible writes.
const AUTONOMY: Autonomy = Autonomy::Reversible;

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
    Resolve(String, Verdict),
    /// Serve the approval console on loopback.
    Console,
}

const USAGE: &str = "usage: inbox-agent [--db <path>] [--run <run id>] [--trace] [--stream | approve <id> | decline <id> [reason] | resume | crash-demo | in-doubt | resolve <key> done|failed|rerun | console]";

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
            "console" => command = Command::Console,
            "resolve" => {
                let key = args
                    .next()
                    .ok_or_else(|| format!("resolve needs a key; {USAGE}"))?;
                let verdict = args
                    .next()
                    .as_deref()
                    .and_then(Verdict::parse)
                    .ok_or_else(|| format!("resolve needs done, failed or rerun; {USAGE}"))?;
                command = Command::Resolve(key, verdict);
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

/// The agent's driver over the SQLite file: proposals, the effect journal and the saved
/// runs in one database. (Seal it, `sealed_with(key)`, when anything but this host can
/// write the file.)
fn open_driver(db: &PathBuf) -> Result<Driver<InboxTools, SqliteStore>, String> {
    let store = SqliteStore::open(db).map_err(|error| error.to_string())?;
    // The agent may run reads and reversible writes alone; anything more needs the user.
    Ok(Driver::new(InboxTools::policy(AUTONOMY), store)
        .format(Format::OpenAiChat)
        .expiring_after(PROPOSAL_LIFETIME))
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
    let driver = open_driver(&db)?;
    match command {
        Command::Run { streaming } => conversation(streaming, tracing, &driver, &db).await,
        Command::Approve(id) => approve(&driver, &id, run.as_ref()).await,
        Command::Decline(id, reason) => {
            // What the human declines is the proposal as shown to them.
            let shown = driver.pending(&id).map_err(|error| error.to_string())?;
            driver
                .decline(&shown.reviewed(), &reason)
                .map_err(|error| error.to_string())?;
            let call = shown.call();
            println!("Declined {id} ({} {}).", call.id, call.name);
            match &run {
                Some(run) => deliver(&driver, run),
                None => Ok(()),
            }
        }
        Command::Resume => deliver(&driver, run.as_ref().expect("checked")),
        Command::CrashDemo => crash::demo(&db),
        Command::CrashChild => crash::child(&driver.approvals()).await,
        Command::InDoubt => crash::in_doubt(driver.store(), &db),
        Command::Resolve(key, verdict) => crash::resolve(&driver, &key, verdict).await,
        Command::Console => console(driver, &db).await,
    }
}

/// The second invocation: the user approves a proposal that waited in the database; it
/// runs once, journaled, and its late result goes to the model as a follow-up (the model
/// was told "awaiting approval" and went on: the continue style), through the saved run
/// when `--run` names it.
async fn approve(
    driver: &Driver<InboxTools, SqliteStore>,
    id: &ProposalId,
    run: Option<&RunId>,
) -> Result<(), String> {
    let proposal = driver.pending(id).map_err(|error| error.to_string())?;
    show::heading(&format!("Proposal {id}"));
    show::proposal(&proposal);
    // This process starts from the sample inbox: the example keeps no inbox on disk.
    let mut inbox = Inbox::sample();
    let resolved = driver
        .approve(&proposal.reviewed(), &mut inbox, &ToolContext::default())
        .await
        .map_err(|error| error.to_string())?;
    match resolved {
        Resolved::Ran(report) => {
            println!("\nUser approved {}; it ran:", proposal.call().id);
            for (call, outcome) in report.outcomes() {
                show::outcome(&call.id, &call.name, outcome);
            }
        }
        _ => println!(
            "\nUser approved {}: handed to the host.",
            proposal.call().id
        ),
    }
    match run {
        // The conversation gathers the journaled result and gives it to the model once.
        Some(run) => deliver(driver, run),
        None => Ok(()),
    }
}

/// `console`: the approval page over the database, on a loopback port, behind a fresh
/// token (the printed URL carries it once; the page trades it for a session cookie).
/// Approved calls run against the sample inbox, as `approve` does.
async fn console(
    driver: Driver<InboxTools, SqliteStore>,
    db: &std::path::Path,
) -> Result<(), String> {
    let waiting = driver
        .approvals()
        .waiting()
        .map_err(|error| format!("cannot list the proposals in {}: {error}", db.display()))?
        .len();
    let token = toolset::console::random_token();
    let state = tokio::sync::Mutex::new(Inbox::sample());
    let console =
        toolset::console::Console::new(std::sync::Arc::new(driver), state).with_token(&token);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|error| format!("no loopback port to serve the console on: {error}"))?;
    let address = listener.local_addr().map_err(|error| error.to_string())?;
    println!("Approval console for {} (Ctrl-C stops it):", db.display());
    println!("  http://{address}/?token={token}");
    if waiting == 0 {
        println!(
            "Nothing waits yet: run `cargo run -p inbox-agent -- --db {}` first; its forward waits for you.",
            db.display()
        );
    } else {
        println!("{waiting} proposal(s) wait for you there.");
    }
    console
        .serve(listener)
        .await
        .map_err(|error| format!("the console stopped: {error}"))
}

/// Resumes the conversation `id` (claiming it: a copy resumed elsewhere since is
/// refused) and prepares its next request: the answers other processes left for it,
/// given to the model once as a follow-up.
fn deliver(driver: &Driver<InboxTools, SqliteStore>, id: &RunId) -> Result<(), String> {
    let mut conversation = driver.resume(id).map_err(|error| error.to_string())?;
    println!(
        "\nResumed run {id} (generation {}).",
        conversation.run().generation()
    );
    let next = conversation
        .next_request()
        .map_err(|error| error.to_string())?;
    if next.messages.is_empty() {
        println!("Nothing new for the model.");
    } else {
        println!("Follow-up message for the model:");
        show::messages(&next.messages);
    }
    saved(conversation.run());
    Ok(())
}

/// Says the run was saved, and what it waits on.
fn saved(run: &Run) {
    println!(
        "Run saved (generation {}), waiting on {} proposal(s).",
        run.generation(),
        run.pending().len()
    );
}

async fn conversation(
    streaming: bool,
    tracing: bool,
    driver: &Driver<InboxTools, SqliteStore>,
    db: &std::path::Path,
) -> Result<(), String> {
    show::heading("Tool list generated from the #[tool] declarations");
    show::tool_list(InboxTools::specs());
    // A host starting up looks for calls an earlier crash cut off, before any call runs.
    let in_doubt = driver
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
    let mut transcript = vec![json!({
        "role": "user",
        "content": "Sort out my inbox: set real deadlines, archive the digest, and answer Ana."
    })];
    // The conversation's tool state (what its searches activated, what its calls have
    // read, the proposals it waits on, its journaled calls) lives in the database between
    // requests: each request resumes it, as on a host whose requests land on any process.
    let run_id = driver
        .start()
        .map_err(|error| error.to_string())?
        .id()
        .clone();
    println!("\nRun {run_id} saved in {}.", db.display());
    let mut offered_before: Vec<String> = Vec::new();

    loop {
        let mut conversation = driver.resume(&run_id).map_err(|error| error.to_string())?;
        // One request: what the model was not told yet, and the tools to send.
        let next = conversation
            .next_request()
            .map_err(|error| error.to_string())?;
        if !next.messages.is_empty() {
            println!("\nLate results for the model:");
            show::messages(&next.messages);
            transcript.extend(next.messages);
        }
        let offered: Vec<String> = conversation
            .request()
            .map_err(|error| error.to_string())?
            .offered()
            .into_iter()
            .map(str::to_owned)
            .collect();
        if offered != offered_before {
            println!("\nThis request offers: {}", offered.join(", "));
            offered_before = offered;
        }
        let Some(response) = model.respond(&transcript) else {
            break;
        };
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
                let calls = streamed::replay(file, &body, AUTONOMY)?;
                (streamed::assistant_message(&calls), calls)
            }
        };
        transcript.push(message.clone());
        if calls.is_empty() {
            show::heading(&format!("Model's answer ({file})"));
            println!("{}", message["content"].as_str().unwrap_or_default());
            break;
        }
        show::heading(&format!("Model calls {} tool(s) ({file})", calls.len()));
        for call in &calls {
            println!("- {} {}({})", call.id, call.name, call.arguments);
        }
        let (read_before, activated_before) = (
            conversation.run().exposure().clone(),
            conversation.run().activations().names().len(),
        );

        // Gated as one program, proposals submitted, writes journaled in the database the
        // proposals wait in, every call answered once.
        let turn = conversation
            .respond_calls(calls, &mut inbox, &ctx)
            .await
            .map_err(|error| error.to_string())?;
        if turn.rejected {
            println!("\nThe gate rejected the whole program; nothing ran:");
            let answers = tool_messages(turn.messages);
            for answer in &answers {
                let id = answer["tool_call_id"].as_str().unwrap_or_default();
                let text = answer["content"].as_str().unwrap_or_default();
                println!("- {id}: {text}");
            }
            println!("Tool results sent back so the model can retry:");
            show::messages(&answers);
            transcript.extend(answers);
            saved(conversation.run());
            continue;
        }
        if !turn.proposals.is_empty() {
            println!("\nProposals for the user (autonomy: {AUTONOMY:?}):");
            for proposal in &turn.proposals {
                show::proposal(proposal);
            }
        }
        if let Some(report) = &turn.report {
            println!("\nOutcomes:");
            for (call, outcome) in report.outcomes() {
                show::outcome(&call.id, &call.name, outcome);
            }
        }
        println!("Tool results sent back:");
        show::messages(&turn.messages);
        transcript.extend(tool_messages(turn.messages));
        let exposure = conversation.run().exposure();
        if *exposure != read_before {
            println!(
                "The run has now read private data (from {}) and untrusted content (from {}).",
                none_yet(exposure.private_from()),
                none_yet(exposure.untrusted_from())
            );
        }
        let activated = conversation.run().activations().names();
        if activated.len() > activated_before {
            println!(
                "Activated for the next request: {}",
                activated[activated_before..].join(", ")
            );
        }
        saved(conversation.run());
        drop(conversation);

        // Each proposal waits in the store for the user. The reply is approved at once,
        // exactly as shown; anything else waits for a second invocation.
        for proposal in &turn.proposals {
            let id = proposal.id();
            if !proposal.is_propose_only() {
                println!(
                    "\n{} waits for the user in {} as proposal {id}.\nApprove it with: cargo run -p inbox-agent -- --db {} --run {run_id} approve {id}",
                    proposal.call().id,
                    db.display(),
                    db.display()
                );
                continue;
            }
            let resolved = driver
                .approve(&proposal.reviewed(), &mut inbox, &ctx)
                .await
                .map_err(|error| error.to_string())?;
            if let Resolved::HandedOff(Handoff {
                typed: Some(InboxToolsCall::SendReply(reply)),
                ..
            }) = resolved
            {
                // Approving ended it in the journal as handed to the host; the next
                // request tells the model, once.
                println!(
                    "\nUser approved {}: the host sends the reply to {}.",
                    proposal.call().id,
                    reply.to
                );
            }
        }
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
/// conversation after the assistant message that made the calls (the driver gives OpenAI
/// Chat's answers to one batch as one array).
fn tool_messages(messages: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    messages
        .into_iter()
        .flat_map(|message| match message {
            serde_json::Value::Array(messages) => messages,
            other => vec![other],
        })
        .collect()
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
        // Plain text, whatever else in the build turns on tracing-subscriber's colours (a
        // workspace build unifies its features: rig's default ones include `ansi`).
        .with_ansi(false)
        .init();
}
