//! What a handler's error becomes: `ToolError::retry` is its own outcome, which every
//! consumer renders as an error result carrying the hint and telling the model to call
//! the tool again; an error that is just text (`Result<_, String>`, `&'static str`, an
//! own `Display` type) is a failure the model reads word for word. Through gate and apply
//! for the provider formats, and through the MCP server for a `tools/call`.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use std::fmt;
use toolset::consumer::{anthropic, gemini, mcp, openai_chat, openai_responses};
use toolset::mcp::McpServer;
use toolset::prelude::*;
use toolset::report::{Outcome, Report};
use toolset::{Autonomy, ToolCall, ToolContext, ToolError, tool, toolset};
use toolset_tests::mcp_result::{self, text};

const HINT: &str = "\"tuesday\" is not a date; write it as YYYY-MM-DD";

/// The calendar the tools read.
#[derive(Default)]
pub struct Calendar {
    days: Vec<String>,
}

/// The events of one day.
#[tool(tier = "read_only")]
pub async fn events_on(calendar: &Calendar, day: String) -> Result<String, ToolError> {
    if day.len() != 10 {
        return Err(ToolError::retry(format!(
            "\"{day}\" is not a date; write it as YYYY-MM-DD"
        )));
    }
    Ok(calendar
        .days
        .iter()
        .filter(|d| **d == day)
        .count()
        .to_string())
}

/// One event by its number.
#[tool(tier = "read_only")]
pub async fn event(calendar: &Calendar, number: u32) -> Result<String, String> {
    calendar
        .days
        .get(number as usize)
        .cloned()
        .ok_or_else(|| format!("there is no event {number}"))
}

/// How many events there are.
#[tool(tier = "read_only")]
pub async fn count(calendar: &Calendar) -> Result<String, &'static str> {
    if calendar.days.is_empty() {
        return Err("the calendar is empty");
    }
    Ok(calendar.days.len().to_string())
}

/// Why the calendar cannot be read.
#[derive(Debug)]
pub struct Locked;

impl fmt::Display for Locked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the calendar is locked")
    }
}

/// Whether the calendar can be read.
#[tool(tier = "read_only")]
pub async fn open(_calendar: &Calendar) -> Result<(), Locked> {
    Err(Locked)
}

toolset! { pub CalendarTools<Calendar> = [events_on, event, count, open]; }

async fn run(calls: Vec<ToolCall>) -> Report {
    let plan = CalendarTools::gate(calls, Autonomy::ReadOnly).expect("valid calls");
    let mut calendar = Calendar::default();
    CalendarTools::apply(&mut calendar, &ToolContext::default(), plan).await
}

fn outcome(report: &Report, index: usize) -> &Outcome {
    report.entries()[index]
        .outcome
        .as_ref()
        .expect("the call ran")
}

#[tokio::test]
async fn a_retry_is_its_own_outcome_and_every_consumer_renders_it_as_an_error_with_the_hint() {
    let report = run(vec![ToolCall::new(
        "call_1",
        "events_on",
        r#"{"day": "tuesday"}"#,
    )])
    .await;
    assert_eq!(
        outcome(&report, 0),
        &Outcome::Retry {
            hint: HINT.to_owned()
        }
    );
    assert_eq!(outcome(&report, 0).kind(), "retry");
    assert!(!outcome(&report, 0).is_done());

    let results = report.results();
    let output = &results[0].output;
    assert!(output.is_error());
    let said = output.text_content();
    assert!(said.contains(HINT), "{said}");
    assert!(said.contains("call this tool again"), "{said}");

    let chat = openai_chat::results(&results);
    assert_eq!(chat[0]["content"], said.as_str());

    let responses = openai_responses::results(&results);
    assert_eq!(responses[0]["output"], said.as_str());

    let claude = anthropic::results(&results);
    assert_eq!(claude["content"][0]["is_error"], true);
    assert_eq!(claude["content"][0]["content"][0]["text"], said.as_str());

    let gem = gemini::results(&results);
    assert_eq!(
        gem["parts"][0]["functionResponse"]["response"],
        json!({"error": said})
    );

    let mcp_result = mcp::result(output);
    assert_eq!(mcp_result["isError"], true);
    assert_eq!(mcp_result["content"][0]["text"], said.as_str());
}

#[tokio::test]
async fn errors_that_are_just_text_are_failures_with_that_text() {
    let report = run(vec![
        ToolCall::new("call_1", "event", r#"{"number": 7}"#),
        ToolCall::new("call_2", "count", "{}"),
        ToolCall::new("call_3", "open", "{}"),
    ])
    .await;
    let expected = [
        "there is no event 7",
        "the calendar is empty",
        "the calendar is locked",
    ];
    for (index, message) in expected.iter().enumerate() {
        assert_eq!(
            outcome(&report, index),
            &Outcome::Failed {
                message: (*message).to_owned()
            }
        );
    }
    let chat = openai_chat::results(&report.results());
    assert_eq!(chat[0]["content"], "Error: there is no event 7");
}

async fn call_served(name: &str, arguments: Value) -> CallToolResult {
    let server = McpServer::<CalendarTools>::new(Calendar::default());
    mcp_result::call_served(server, name, arguments).await
}

#[tokio::test]
async fn the_mcp_server_answers_a_retry_with_an_error_result_carrying_the_hint() {
    let result = call_served("events_on", json!({"day": "tuesday"})).await;
    assert_eq!(result.is_error, Some(true));
    let said = text(&result);
    assert!(said.contains(HINT), "{said}");
    assert!(said.contains("call this tool again"), "{said}");

    let failed = call_served("event", json!({"number": 7})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text(&failed), "Error: there is no event 7");
}

/// A `std::io::Error` the handler returns as it is.
#[tool(tier = "read_only")]
pub async fn read_day(calendar: &Calendar, day: String) -> Result<String, std::io::Error> {
    calendar
        .days
        .iter()
        .find(|known| **known == day)
        .cloned()
        .ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, format!("no file for {day}"))
        })
}

toolset! {
    /// A handler returning a `std::error::Error` directly.
    pub FileTools<Calendar> = [read_day];
}

/// A handler whose `Result` error is a `std::error::Error` keeps it as the failure's source
/// for the host (what the handler returned is converted where its type is known), while
/// the model reads its text; a text error has no source.
#[tokio::test]
async fn a_returned_std_error_is_kept_as_the_source_and_text_is_only_text() {
    let calendar = Calendar::default();
    let ctx = ToolContext::default();
    let call = FileToolsCall::ReadDay(read_day {
        day: "2026-12-02".to_owned(),
    });
    let error = FileTools::dispatch(toolset::set::Access::Shared(&calendar), &ctx, call)
        .await
        .expect_err("no such day");
    assert_eq!(error.message(), "no file for 2026-12-02");
    let source = error.source().expect("the io::Error is the source");
    let io = source
        .downcast_ref::<std::io::Error>()
        .expect("the very error the handler returned");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);

    let call = CalendarToolsCall::Event(event { number: 9 });
    let error = CalendarTools::dispatch(toolset::set::Access::Shared(&calendar), &ctx, call)
        .await
        .expect_err("no event 9");
    assert_eq!(error.message(), "there is no event 9");
    assert!(error.source().is_none(), "text has no source: {error:?}");
}
