#![deny(warnings)]
//! Every argument form: plain owned values, `Option`, `Vec`, nested structs and enums,
//! maps, `#[serde(...)]` on a parameter, documented parameters, and the whole-object form.

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use toolset::prelude::ToolSet;
use toolset::{tool, toolset};

/// Where an item lives.
#[derive(Deserialize, JsonSchema)]
pub struct Location {
    /// The folder's name.
    pub folder: String,
    /// A position inside it.
    pub position: Option<Position>,
}

/// A cell in a grid.
#[derive(Deserialize, JsonSchema)]
pub struct Position {
    /// Zero-based row.
    pub row: u16,
    /// Zero-based column.
    pub col: u16,
}

/// How urgent something is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Now.
    High,
}

/// Move an item.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)] // The user's own attributes stay on the fn.
pub async fn move_item(
    /// The item to move.
    id: u32,
    /// Where to.
    target: Location,
    /// How urgent the move is.
    priority: Option<Priority>,
    /// Tags to add, in order.
    tags: Vec<String>,
    /// Tags to remove; none when omitted.
    #[serde(default)]
    untag: Vec<String>,
    /// Extra labels.
    #[serde(default, rename = "labels")]
    extra: BTreeMap<String, String>,
    /// A fully qualified optional.
    note: std::option::Option<String>,
    /// Any JSON.
    metadata: serde_json::Value,
) -> String {
    let at = target.position.map(|at| (at.row, at.col));
    let folder = target.folder;
    format!("{id} {folder} {at:?} {priority:?} {tags:?} {untag:?} {extra:?} {note:?} {metadata}")
}

/// The arguments of `schedule`, as one object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEvent {
    /// What the event is called.
    pub title: String,
    /// Who is invited.
    #[serde(default)]
    pub attendees: Vec<String>,
}

/// Put an event on the calendar (the whole-object form).
#[tool(tier = "external_reversible")]
pub async fn schedule(#[args] event: NewEvent) -> String {
    format!("{} with {:?}", event.title, event.attendees)
}

/// A raw identifier as a parameter name.
#[tool(tier = "read_only")]
pub async fn find(r#type: String) -> String {
    r#type
}

toolset! {
    /// Tools with every argument form.
    pub Tools = [move_item, schedule, find];
}

pub fn main() {
    let schema = InboxSchema::of("move_item");
    let required = &schema["required"];
    assert_eq!(
        required,
        &serde_json::json!(["id", "target", "tags", "metadata"]),
        "Option and #[serde(default)] parameters are optional: {schema}"
    );
    assert_eq!(
        schema["properties"]["id"]["description"], "The item to move.",
        "a parameter's doc comment describes it"
    );
    assert!(schema["properties"].get("labels").is_some());
    assert_eq!(
        InboxSchema::of("schedule")["required"],
        serde_json::json!(["title"])
    );
    assert!(InboxSchema::of("find")["properties"].get("type").is_some());

    let parse = |json: &str| <Tools as ToolSet>::parse(ToolsName::MoveItem, json);
    let minimal = r#"{"id": 1, "target": {"folder": "done"}, "tags": [], "metadata": null}"#;
    let Ok(ToolsCall::MoveItem(args)) = parse(minimal) else {
        panic!("optional arguments may be left out");
    };
    assert!(args.priority.is_none() && args.note.is_none() && args.untag.is_empty());
    let nulls = r#"{"id": 1, "target": {"folder": "done"}, "tags": [], "metadata": 1,
                    "priority": null, "note": null, "labels": {"a": "b"}}"#;
    let Ok(ToolsCall::MoveItem(args)) = parse(nulls) else {
        panic!("optional arguments may be null");
    };
    assert!(args.priority.is_none() && args.extra.len() == 1);
    let missing = parse(r#"{"target": {"folder": "done"}, "tags": [], "metadata": 1}"#);
    let error = missing.expect_err("`id` is required").to_string();
    assert!(error.contains("missing field `id`"), "{error}");
    let high =
        r#"{"id": 1, "target": {"folder": "a"}, "tags": [], "metadata": 1, "priority": "high"}"#;
    assert!(matches!(
        parse(high),
        Ok(ToolsCall::MoveItem(move_item {
            priority: Some(Priority::High),
            ..
        }))
    ));
}

struct InboxSchema;

impl InboxSchema {
    fn of(name: &str) -> serde_json::Value {
        Tools::spec(name).expect("declared").input_schema().clone()
    }
}
