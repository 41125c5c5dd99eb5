//! `#[tool(example = "...")]`: an example is arguments the gate accepts, or the tool is
//! misdeclared (reported by `check_declarations`, every call refused, as for any broken
//! declaration); the good ones are carried by `ToolSpec::examples` and rendered where the
//! format has a field for them (Anthropic's `input_examples`), nowhere else.

use serde::Deserialize;
use serde_json::json;
use toolset::consumer::{Format, tool_value};
use toolset::prelude::*;
use toolset::report::ProblemKind;
use toolset::{Autonomy, ToolCall, tool, toolset};

/// Where to look, nested: its unknown keys are refused by the gate, though serde would
/// skip them (no `deny_unknown_fields` here).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Folder {
    /// The folder's name.
    pub name: String,
}

/// Search the invoices by free text.
#[tool(
    tier = "read_only",
    example = r#"{"query": "invoices"}"#,
    example = r#"{"query": "overdue", "limit": 5, "folder": {"name": "archive"}}"#
)]
pub async fn search(
    /// Words to look for.
    query: String,
    /// At most this many hits.
    #[schemars(range(max = 50))]
    limit: Option<u32>,
    /// Where to look.
    folder: Option<Folder>,
) -> String {
    format!("{query} {limit:?} {folder:?}")
}

/// Search, with an example of the wrong type.
#[tool(tier = "read_only", example = r#"{"query": 42}"#)]
pub async fn wrong_type(
    /// Words to look for.
    query: String,
) -> String {
    query
}

/// Search, with an example naming a key the tool does not have.
#[tool(tier = "read_only", example = r#"{"query": "a", "qeury": "b"}"#)]
pub async fn unknown_key(
    /// Words to look for.
    query: String,
) -> String {
    query
}

/// Search, with an example missing a required argument, and one good example.
#[tool(
    tier = "read_only",
    example = r#"{"query": "fine"}"#,
    example = r#"{"limit": 3}"#
)]
pub async fn missing_required(
    /// Words to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

/// Search, with an example breaking a schema constraint serde does not enforce, and a
/// nested key serde would skip but the gate refuses.
#[tool(
    tier = "read_only",
    example = r#"{"limit": 51}"#,
    example = r#"{"limit": 1, "folder": {"name": "x", "nmae": "y"}}"#
)]
pub async fn past_the_range(
    /// At most this many hits.
    #[schemars(range(max = 50))]
    limit: u32,
    /// Where to look.
    folder: Option<Folder>,
) -> String {
    format!("{limit} {folder:?}")
}

toolset! { pub GoodExamples<()> = [search]; }
toolset! { pub BadExamples<()> = [search, wrong_type, unknown_key, missing_required, past_the_range]; }

#[test]
fn examples_the_gate_accepts_are_no_declaration_problem() {
    assert_eq!(toolset::check_declarations::<GoodExamples>(), Ok(()));
    assert_eq!(GoodExamples::check_declarations(), Ok(()));
    let spec = GoodExamples::spec("search").expect("declared");
    assert_eq!(spec.declaration_problem(), None);
    assert_eq!(
        spec.examples(),
        [
            json!({"query": "invoices"}),
            json!({"query": "overdue", "limit": 5, "folder": {"name": "archive"}}),
        ]
    );
}

#[test]
fn every_example_the_gate_refuses_is_a_declaration_problem_naming_the_tool() {
    let problems = BadExamples::check_declarations().expect_err("misdeclared examples");
    assert_eq!(
        toolset::check_declarations::<BadExamples>(),
        Err(problems.clone())
    );
    let tools: Vec<&str> = problems
        .iter()
        .map(|problem| problem.tool.as_str())
        .collect();
    assert_eq!(
        tools,
        [
            "wrong_type",
            "unknown_key",
            "missing_required",
            "past_the_range"
        ]
    );
    let said = |tool: &str| {
        problems
            .iter()
            .find(|problem| problem.tool == tool)
            .expect("reported")
            .to_string()
    };
    for (tool, what) in [
        (
            "wrong_type",
            r#"its `example` 1 (`{"query": 42}`) is refused by the gate: /query: expected a string, got 42"#,
        ),
        ("unknown_key", "its `example` 1 ("),
        ("unknown_key", "qeury"),
        ("missing_required", "its `example` 2 (`{\"limit\": 3}`)"),
        ("missing_required", "query"),
        ("past_the_range", "its `example` 1 (`{\"limit\": 51}`)"),
        ("past_the_range", "`example` 2 ("),
        ("past_the_range", "nmae"),
    ] {
        let text = said(tool);
        assert!(
            text.starts_with(&format!("the tool `{tool}` is misdeclared: ")),
            "{text}"
        );
        assert!(text.contains(what), "{what} in\n{text}");
        assert!(
            text.contains("fix it in #[tool(example = ...)]"),
            "says what to do: {text}"
        );
    }
    // The good example of `missing_required` is not named.
    assert!(
        !said("missing_required").contains("`example` 1"),
        "{}",
        said("missing_required")
    );
}

#[test]
fn a_tool_with_a_refused_example_refuses_every_call_like_any_misdeclared_tool() {
    // The set's first use panics in a debug build, naming the problem for its author
    // (`misdeclared_set.rs`); once: from then on the gate answers the model.
    let first = std::panic::catch_unwind(|| BadExamples::gate([], Autonomy::ReadOnly));
    assert_eq!(first.is_err(), cfg!(debug_assertions));
    // Arguments that fit the tool are refused too: the model would copy the example.
    let call = ToolCall::new("1", "wrong_type", r#"{"query": "fine"}"#);
    let rejected = BadExamples::gate([call], Autonomy::ReadOnly).expect_err("misdeclared");
    let problem = &rejected.problems()[0];
    assert_eq!(problem.kind, ProblemKind::Misdeclared);
    assert!(
        problem.message.contains("no fault of your call") && problem.message.contains("example"),
        "{}",
        problem.message
    );
    // The well-declared tool of the same set is unaffected.
    let call = ToolCall::new("2", "search", r#"{"query": "fine", "limit": 3}"#);
    assert!(BadExamples::gate([call], Autonomy::ReadOnly).is_ok());
}

#[test]
fn anthropic_renders_the_examples_as_input_examples_exactly() {
    let spec = GoodExamples::spec("search").expect("declared");
    let tool = tool_value(spec, Format::Anthropic);
    assert_eq!(
        tool["input_examples"],
        json!([
            {"query": "invoices"},
            {"query": "overdue", "limit": 5, "folder": {"name": "archive"}},
        ])
    );
    // `strict` where the arguments fit strict tool use (see `strict_budget.rs`).
    let keys: Vec<&str> = tool
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .filter(|key| *key != "strict")
        .collect();
    assert_eq!(
        keys,
        ["name", "description", "input_schema", "input_examples"]
    );
}

#[test]
fn formats_without_a_field_for_examples_leave_them_out() {
    let spec = GoodExamples::spec("search").expect("declared");
    for format in Format::ALL
        .into_iter()
        .filter(|format| format.is_json() && *format != Format::Anthropic)
    {
        let text = tool_value(spec, format).to_string();
        assert!(
            !text.contains("example") && !text.contains("overdue"),
            "{format:?}: {text}"
        );
    }
}

#[test]
fn a_tool_without_examples_renders_no_input_examples() {
    let spec = BadExamples::spec("search").expect("declared");
    assert_eq!(spec.examples().len(), 2);
    let ping = toolset_tests::InboxTools::specs().first().expect("a tool");
    assert!(ping.examples().is_empty());
    assert!(
        tool_value(ping, Format::Anthropic)
            .get("input_examples")
            .is_none()
    );
}

/// Wire money; a human sends it.
#[tool(
    tier = "irreversible",
    propose_only,
    example = r#"{"iban": "DE00", "cents": 100}"#,
    example = r#"{"iban": "DE00", "cents": -1}"#
)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Wire {
    /// The receiving account.
    pub iban: String,
    /// How much, in cents.
    pub cents: u64,
}

toolset! { pub Proposed<()> = [Wire]; }

#[test]
fn a_propose_only_tool_s_examples_are_checked_like_its_calls() {
    let problems = Proposed::check_declarations().expect_err("a negative amount");
    assert_eq!(problems.len(), 1);
    let text = problems[0].to_string();
    assert!(
        text.contains("its `example` 2 (")
            && text.contains("/cents")
            && !text.contains("`example` 1"),
        "{text}"
    );
}

#[test]
fn a_spec_built_outside_a_set_cannot_check_its_examples_and_says_so() {
    // What `toolset!` would not write: the spec without its set's check. Fail closed.
    let spec = toolset::ToolSpec::__new(<search as toolset::set::Tool>::META);
    let why = spec.declaration_problem().expect("unchecked examples");
    assert!(why.contains("list the tool in `toolset!`"), "{why}");
}

/// A runtime tool's examples (`DynamicTool::example`) are checked at registration as the
/// gate checks a call: one the input schema refuses, or that is not an object (in the
/// compiler's words), refuses the tool, naming the example and why; good ones are
/// rendered as Anthropic's `input_examples`, as a compiled tool's are.
#[test]
fn a_runtime_tool_s_examples_are_checked_at_registration_and_rendered() {
    use toolset::{DynamicTool, Tier, ToolContext};
    let schema = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
        "required": ["city"],
        "additionalProperties": false
    });
    let weather = |examples: Vec<serde_json::Value>| {
        examples.into_iter().fold(
            DynamicTool::new("weather", Tier::ReadOnly, "The forecast for a city.")
                .input_schema(schema.clone())
                .handler(|_args: serde_json::Value, _ctx: &ToolContext| async move { "sunny" }),
            DynamicTool::example,
        )
    };
    let good = vec![
        json!({"city": "Oslo"}),
        json!({"city": "Lisbon", "days": 3}),
    ];
    let toolbox = GoodExamples::toolbox()
        .with(weather(good.clone()))
        .expect("good examples register");
    let tool = toolbox.runtime_tool("weather").expect("registered");
    assert_eq!(tool.spec().examples(), good.as_slice());
    let rendered = tool_value(tool.spec(), Format::Anthropic);
    assert_eq!(rendered["input_examples"], json!(good));
    assert!(
        tool_value(tool.spec(), Format::OpenAiResponses)
            .get("input_examples")
            .is_none()
    );
    for (bad, why) in [
        (json!({"city": 42}), "/city"),
        (json!({"city": "Oslo", "days": 30}), "/days"),
        (json!({"town": "Oslo"}), "city"),
        (
            json!(["Oslo"]),
            "which are a JSON object, but example 2 is an array",
        ),
    ] {
        let error = GoodExamples::toolbox()
            .with(weather(vec![json!({"city": "Oslo"}), bad.clone()]))
            .expect_err("a bad example refuses the tool");
        let text = error.to_string();
        assert!(text.contains("example 2"), "{bad}: {text}");
        assert!(text.contains(why), "{bad}: {text}");
    }
}
