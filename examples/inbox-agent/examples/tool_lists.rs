//! Prints the inbox agent's tool list as one consumer receives it.
//!
//! ```text
//! cargo run -p inbox-agent --example tool_lists -- openai_chat
//! cargo run -p inbox-agent --example tool_lists -- gemini
//! ```
//!
//! Formats: openai_chat, openai_responses, anthropic, gemini, mcp, prompt.

use inbox_agent::InboxTools;
use std::process::ExitCode;
use toolset::consumer::{Format, Order, tool_list};

fn main() -> ExitCode {
    let wanted = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "openai_chat".to_owned());
    let Some(format) = Format::ALL
        .into_iter()
        .find(|format| format.as_str() == wanted)
    else {
        let known: Vec<&str> = Format::ALL.iter().map(|format| format.as_str()).collect();
        eprintln!(
            "unknown format {wanted:?}; expected one of {}",
            known.join(", ")
        );
        return ExitCode::FAILURE;
    };
    let list = tool_list::<InboxTools>(format, Order::Declared);
    if format == Format::Prompt {
        println!("{list}");
        return ExitCode::SUCCESS;
    }
    match serde_json::from_str::<serde_json::Value>(list)
        .and_then(|value| serde_json::to_string_pretty(&value))
    {
        Ok(pretty) => println!("{pretty}"),
        Err(error) => {
            eprintln!("the rendered list is not JSON: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
