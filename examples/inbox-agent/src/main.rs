//! The inbox agent, offline: a scripted model drives the real loop of gate → proposals →
//! apply → tool results, printing each step.
//!
//! Run it with `cargo run -p inbox-agent`.

mod scripted_model;
mod show;

use inbox_agent::{Inbox, InboxTools, InboxToolsCall};
use scripted_model::ScriptedModel;
use serde_json::json;
use std::process::ExitCode;
use toolset::consumer::openai_chat;
use toolset::{Approved, Autonomy, ToolCall, ToolContext};

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
    show::heading("Tool list generated from the #[tool] declarations");
    show::tool_list(InboxTools::specs());

    let mut inbox = Inbox::sample();
    let ctx = ToolContext::default();
    let mut model = ScriptedModel::new();
    let mut conversation = vec![json!({
        "role": "user",
        "content": "Sort out my inbox: set real deadlines, archive the digest, and answer Ana."
    })];
    // The agent may run reads and reversible writes alone; anything more needs the user.
    let autonomy = Autonomy::Reversible;

    while let Some(response) = model.respond(&conversation) {
        let (file, response) = response?;
        let message = response
            .pointer("/choices/0/message")
            .cloned()
            .ok_or_else(|| format!("script/{file} has no choices[0].message"))?;
        conversation.push(message.clone());
        let calls = ToolCall::from_openai_chat(&message).map_err(|error| error.to_string())?;
        if calls.is_empty() {
            show::heading(&format!("Model's answer ({file})"));
            println!("{}", message["content"].as_str().unwrap_or_default());
            break;
        }

        show::heading(&format!("Model calls {} tool(s) ({file})", calls.len()));
        for call in &calls {
            println!("- {} {}({})", call.id, call.name, call.arguments);
        }

        let plan = match InboxTools::gate(calls, autonomy) {
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

        println!("\nProposals for the user (autonomy: {autonomy:?}):");
        for proposal in plan.proposals() {
            show::proposal(proposal);
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
        println!("- #{} {:<18} due {due}{archived}", item.id, item.subject);
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
