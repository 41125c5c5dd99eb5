//! A rig agent on the inbox example's tools, offline: rig's scripted model
//! (`MockCompletionModel`) stands in for a provider, so no API key and no network.
//!
//! ```sh
//! cargo run -p toolset-rig --example inbox
//! ```
//!
//! The model searches, archives and forwards in one turn; toolset gates the three calls as
//! one program: the search and the archive run, the forward outside the company waits for
//! the user. The user approves it, it runs once, and the agent's next run is told.

use inbox_agent::{Inbox, InboxTools};
use rig_agent::AgentBuilder;
use rig_core::completion::AssistantContent;
use rig_core::message::{Message, ToolCall, ToolFunction, ToolName, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::{Value, json};
use toolset::driver::Resolved;
use toolset::prelude::*;
use toolset::{Autonomy, Driver, MemoryStore, ToolContext};
use toolset_rig::{RigTools, WithToolset};

type Error = Box<dyn std::error::Error>;

fn call(id: &str, name: &str, arguments: Value) -> Result<AssistantContent, Error> {
    let function = ToolFunction::new(ToolName::new(name)?, arguments);
    Ok(AssistantContent::ToolCall(ToolCall::from_wire(
        id, function,
    )))
}

/// The text parts and tool results of a user message, one line each.
fn show(message: &Message) {
    let Message::User { content } = message else {
        return;
    };
    for part in content {
        match part {
            UserContent::Text(text) => println!("  user: {}", text.text),
            UserContent::ToolResult(result) => {
                let kind = if result.is_error {
                    "not run or failed"
                } else {
                    "ran"
                };
                let text = serde_json::to_string(&result.content).unwrap_or_default();
                println!("  {} ({kind}): {text}", result.call);
            }
            _ => {}
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let model = MockCompletionModel::from_turns([
        MockTurn::from_contents([
            call("call_1", "search", json!({"query": "invoice"}))?,
            call("call_2", "archive", json!({"id": 4}))?,
            call(
                "call_3",
                "forward",
                json!({"id": 3, "to": "billing@partner.example"}),
            )?,
        ]),
        MockTurn::text("I archived the digest; the forward waits for your approval."),
        MockTurn::text("The invoice went to billing."),
    ]);

    // Reads and reversible writes run alone; anything more waits for the user.
    let driver = Driver::new(InboxTools::policy(Autonomy::Reversible), MemoryStore::new());
    let tools = RigTools::new(driver, Inbox::sample(), ToolContext::default())?;
    let agent = AgentBuilder::new(model.clone())
        .preamble("You manage the user's inbox.")
        .default_max_turns(4)
        .toolset(&tools)?
        .build();
    println!("tools given to rig: {}", tools.names().join(", "));

    let prompt = "Find the invoice, archive the digest and forward the invoice to billing.";
    println!("\n> {prompt}");
    let answer = agent.prompt(prompt).await?;
    println!("what the model was told after its calls:");
    if let Some(results) = model.requests().get(1).and_then(|r| r.chat_history.last()) {
        show(results);
    }
    println!("model: {}", answer.output());

    for proposal in tools.take_proposals() {
        println!(
            "\nwaiting for the user: {}({}) at tier {}, because: {}",
            proposal.call().name,
            proposal.call().arguments,
            proposal.tier(),
            proposal.escalated_because().unwrap_or("its tier"),
        );
        match tools.approve(&proposal.reviewed()).await? {
            Resolved::Ran(report) => {
                for reply in report.results() {
                    println!("approved; it ran: {}", reply.output.text_content());
                }
            }
            other => println!("approved: {other:?}"),
        }
    }

    println!("\n> Anything new?");
    let answer = agent.prompt("Anything new?").await?;
    println!("what the model was told first:");
    if let Some(prompt) = model.requests().get(2).and_then(|r| r.chat_history.last()) {
        show(prompt);
    }
    println!("model: {}", answer.output());
    Ok(())
}
