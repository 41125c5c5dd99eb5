//! A structured output is checked against its tool's declared output schema before any
//! consumer sends it (issue 38, item 3): apply records an output that breaks the schema
//! as a failure naming where, so OpenAI, Anthropic, Gemini and MCP alike answer the model
//! with an error, never with the non-conforming value. A `Json<T>` holding a non-finite
//! float (which serde_json would write as `null`) is refused the same way, naming the
//! field. Judged from outside: the results each consumer writes, and an MCP client's
//! `tools/call` over an in-memory pipe.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolset::consumer::{anthropic, gemini, mcp, openai_chat, openai_responses};
use toolset::mcp::McpServer;
use toolset::prelude::*;
use toolset::report::{Outcome, Report};
use toolset::{
    Autonomy, DynamicTool, Json, Tier, ToolCall, ToolContext, ToolOutput, Toolbox, tool, toolset,
};
use toolset_tests::mcp_result::{call_served, text};

/// The state: none is needed.
#[derive(Default)]
pub struct Nothing;

/// A measurement.
#[derive(Serialize, JsonSchema)]
pub struct Reading {
    /// The sensor.
    pub sensor: String,
    /// What it read.
    pub ratio: f64,
    /// Earlier readings.
    pub history: Vec<f64>,
}

/// Read a sensor; `broken` makes it read NaN, `at` where.
#[tool(tier = "read_only")]
pub async fn read_sensor(broken: bool, at: u8) -> Json<Reading> {
    let bad = if broken { f64::NAN } else { 0.5 };
    Json(Reading {
        sensor: "s1".to_owned(),
        ratio: if at == 0 { bad } else { 0.5 },
        history: vec![0.25, if at == 1 { f64::INFINITY } else { 0.75 }],
    })
}

toolset! { pub Sensors<Nothing> = [read_sensor]; }

/// The schema the attack declared: one integer `n`, nothing else.
fn count_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "additionalProperties": false
    })
}

/// A runtime tool declaring [`count_schema`] and answering `answer`.
fn counting(name: &str, answer: Value) -> DynamicTool {
    DynamicTool::new(name, Tier::ReadOnly, "Count things.")
        .output_schema(count_schema())
        .handler(move |_args: Value, _ctx: &ToolContext| {
            let answer = answer.clone();
            async move { ToolOutput::structured(answer) }
        })
}

fn toolbox() -> Toolbox<Sensors> {
    Sensors::toolbox()
        .with_all([
            counting("count_bad", json!({"n": "x", "extra": true})),
            counting("count_good", json!({"n": 3})),
        ])
        .expect("the runtime tools register")
}

async fn run(calls: Vec<ToolCall>) -> Report {
    let toolbox = toolbox();
    let policy = Sensors::policy(Autonomy::ReadOnly);
    let plan = toolbox
        .request(&policy)
        .expect("no unknown runtime name")
        .gate(calls)
        .expect("valid calls");
    Sensors::apply(&mut Nothing, &ToolContext::default(), plan).await
}

fn failure(report: &Report, index: usize) -> String {
    match report.entries()[index].outcome.as_ref() {
        Some(Outcome::Failed { message }) => message.clone(),
        other => panic!("call {index} should have failed, got {other:?}"),
    }
}

/// Every consumer's result for `report`'s call `index` is an error carrying `said` and
/// none carries the refused value.
fn every_consumer_sends_an_error(report: &Report, index: usize, refused: &str) {
    let results = report.results();
    let output = &results[index].output;
    assert!(output.is_error());
    assert!(output.structured_content().is_none());
    let said = output.text_content();
    let chat = openai_chat::results(&results);
    assert_eq!(chat[index]["content"], said.as_str());
    let responses = openai_responses::results(&results);
    assert_eq!(responses[index]["output"], said.as_str());
    let claude = anthropic::results(&results);
    assert_eq!(claude["content"][index]["is_error"], true);
    let gem = gemini::results(&results);
    assert_eq!(
        gem["parts"][index]["functionResponse"]["response"],
        json!({"error": said})
    );
    let mcp_result = mcp::result(output);
    assert_eq!(mcp_result["isError"], true);
    assert!(mcp_result.get("structuredContent").is_none());
    for rendered in [chat, responses, claude, gem, mcp_result] {
        assert!(!rendered.to_string().contains(refused), "{rendered}");
    }
}

#[tokio::test]
async fn a_runtime_tools_output_that_breaks_its_output_schema_is_a_failure_naming_where() {
    let report = run(vec![
        ToolCall::new("c1", "count_bad", "{}"),
        ToolCall::new("c2", "count_good", "{}"),
    ])
    .await;
    let message = failure(&report, 0);
    assert!(
        message.contains("did not match its declared output schema"),
        "{message}"
    );
    assert!(message.contains("/n"), "{message}");
    assert!(message.contains("/extra"), "{message}");
    every_consumer_sends_an_error(&report, 0, "\"extra\"");
    // A conforming output is sent as it is.
    let results = report.results();
    assert!(!results[1].output.is_error());
    assert_eq!(
        results[1].output.structured_content(),
        Some(&json!({"n": 3}))
    );
}

#[tokio::test]
async fn a_json_result_holding_a_non_finite_float_is_refused_naming_the_field() {
    let report = run(vec![
        ToolCall::new("c1", "read_sensor", r#"{"broken": true, "at": 0}"#),
        ToolCall::new("c2", "read_sensor", r#"{"broken": false, "at": 1}"#),
        ToolCall::new("c3", "read_sensor", r#"{"broken": false, "at": 2}"#),
    ])
    .await;
    let nan = failure(&report, 0);
    assert!(nan.contains("/ratio"), "{nan}");
    assert!(
        nan.contains("did not match its declared output schema"),
        "{nan}"
    );
    let infinite = failure(&report, 1);
    assert!(infinite.contains("/history/1"), "{infinite}");
    every_consumer_sends_an_error(&report, 0, r#""ratio":null"#);
    assert!(
        report.entries()[2]
            .outcome
            .as_ref()
            .is_some_and(Outcome::is_done)
    );
}

async fn mcp_call(name: &str, arguments: Value) -> CallToolResult {
    let server = McpServer::<Sensors>::new(Nothing).with_toolbox(toolbox());
    call_served(server, name, arguments).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mcp_server_never_sends_an_output_that_breaks_the_schema_as_a_success() {
    let bad = mcp_call("count_bad", json!({})).await;
    assert_eq!(bad.is_error, Some(true), "{bad:?}");
    assert!(bad.structured_content.is_none(), "{bad:?}");
    let said = text(&bad);
    assert!(
        said.contains("did not match its declared output schema"),
        "{said}"
    );
    assert!(said.contains("/n"), "{said}");

    let nan = mcp_call("read_sensor", json!({"broken": true, "at": 0})).await;
    assert_eq!(nan.is_error, Some(true), "{nan:?}");
    assert!(text(&nan).contains("/ratio"), "{nan:?}");

    let good = mcp_call("count_good", json!({})).await;
    assert_eq!(good.is_error, Some(false), "{good:?}");
    assert_eq!(good.structured_content, Some(json!({"n": 3})));
}

/// A label whose pattern no ECMA-262 validator compiles (`\\Z` is Python's, not ECMA's).
#[derive(Serialize, JsonSchema)]
pub struct Label {
    /// The label.
    #[schemars(regex(pattern = "^[a-z]+\\Z"))]
    pub label: String,
}

/// Label a thing, with an output schema that cannot be compiled.
#[tool(tier = "read_only")]
pub async fn label_thing(ran: &std::sync::atomic::AtomicUsize) -> Json<Label> {
    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    Json(Label {
        label: "x".to_owned(),
    })
}

toolset! { pub Labels<std::sync::atomic::AtomicUsize> = [label_thing]; }

#[test]
fn an_output_schema_the_validator_cannot_compile_is_refused_before_any_call_runs() {
    // A runtime tool: refused when it registers.
    let refused = Sensors::toolbox()
        .with(
            DynamicTool::new("label", Tier::ReadOnly, "Label a thing.")
                .output_schema(json!({
                    "type": "object",
                    "properties": {"label": {"type": "string", "pattern": "^[a-z]+\\Z"}}
                }))
                .handler(|_args: Value, _ctx: &ToolContext| async move {
                    ToolOutput::structured(json!({"label": "x"}))
                }),
        )
        .expect_err("an output that cannot be checked is never produced");
    assert!(refused.to_string().contains("output schema"), "{refused}");
    // A compiled tool: its declaration is broken, so the gate refuses its calls and none
    // runs (an output no validator can check is never produced).
    let problems = Labels::check_declarations().expect_err("the output schema cannot compile");
    assert!(
        problems[0].to_string().contains("output schema"),
        "{problems:?}"
    );
    // The set's first use says so loudly in a debug build (`misdeclared_set.rs`); once:
    // from then on the gate answers the model.
    let first = std::panic::catch_unwind(|| Labels::gate([], Autonomy::ReadOnly));
    assert_eq!(first.is_err(), cfg!(debug_assertions));
    let rejected = Labels::gate(
        [ToolCall::new("c1", "label_thing", "{}")],
        Autonomy::ReadOnly,
    )
    .expect_err("a misdeclared tool's calls are refused");
    assert_eq!(
        rejected.problems()[0].kind,
        toolset::report::ProblemKind::Misdeclared
    );
    assert!(
        rejected.problems()[0].message.contains("output schema"),
        "{}",
        rejected.problems()[0].message
    );
}
