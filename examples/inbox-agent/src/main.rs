//! The inbox agent, offline: a scripted model drives the real loop of request → gate →
//! proposals → apply → tool results, printing each step. One deferred tool (`add_label`)
//! is not listed at first: the model finds it with `tool_search`, and it is offered from
//! the next request on.
//!
//! Run it with `cargo run -p inbox-agent`; add `-- --stream` to replay the model's
//! turns as streamed responses, whose calls are assembled and checked as they arrive, and
//! `-- --trace` to print the `tracing` spans toolset records (each call's `execute_tool`
//! span, the gate's) as each one closes.

mod scripted_model;
mod show;
mod streamed;

use inbox_agent::{Inbox, InboxTools, InboxToolsCall};
use scripted_model::{Reply, ScriptedModel};
use serde_json::json;
use std::process::ExitCode;
use toolset::consumer::{Format, openai_chat};
use toolset::{Activations, Approved, Autonomy, Request, ToolCall, ToolContext};

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
    let mut streaming = false;
    let mut tracing = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--stream" => streaming = true,
            "--trace" => tracing = true,
            other => {
                return Err(format!(
                    "unknown argument {other:?}; the options are --stream and --trace"
                ));
            }
        }
    }
    if tracing {
        print_spans();
    }
    show::heading("Tool list generated from the #[tool] declarations");
    show::tool_list(InboxTools::specs());

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
    // What the conversation's searches activated, and the tools its history names.
    let mut activations = Activations::new();
    let mut history: Vec<String> = Vec::new();
    let mut offered_before: Vec<&str> = Vec::new();

    while let Some(response) = model.respond(&conversation) {
        // One request: its tool list (what a live agent sends) and its gate decide together.
        let request = Request::new(&policy, Format::OpenAiChat)
            .activated(&activations)
            .history(&history);
        let _tools_to_send = request.tool_list();
        let offered = request.offered();
        if offered != offered_before {
            println!("\nThis request offers: {}", offered.join(", "));
            offered_before = offered;
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
                let calls = streamed::replay(file, body, autonomy)?;
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

        let report = InboxTools::apply(&mut inbox, &ctx, plan).await;
        println!("\nOutcomes:");
        for (call, outcome) in report.outcomes() {
            show::outcome(&call.id, &call.name, outcome);
        }
        let results = tool_messages(&report.results());
        println!("Tool results sent back:");
        show::messages(&results);
        conversation.extend(results);
        let before = activations.names().len();
        if activations.record(&report) > 0 {
            println!(
                "Activated for the next request: {}",
                activations.names()[before..].join(", ")
            );
        }

        // The user reviews each proposal; here they approve it exactly as shown.
        for proposal in &proposals {
            let approval = proposal.approve();
            match InboxTools::approve(proposal, &approval, &InboxTools::policy(autonomy))
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
                }
                Approved::Handoff { call, .. } => {
                    println!("\nUser approved {}: handed to the host.", call.id)
                }
                Approved::Run(plan) => {
                    let report = InboxTools::apply(&mut inbox, &ctx, plan).await;
                    for (call, outcome) in report.outcomes() {
                        show::outcome(&call.id, &call.name, outcome);
                    }
                }
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

/// The `role: "tool"` messages answering a batch, one per call, to append to the
/// conversation after the assistant message that made the calls.
fn tool_messages(results: &[toolset::ToolResult]) -> Vec<serde_json::Value> {
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
