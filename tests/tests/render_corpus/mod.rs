//! A corpus of tools with awkward argument types, shared by the `render_*` tests.
//!
//! Every argument form `#[tool]` accepts appears here at least once, with the types that
//! trip renderers up: `Option`, nested structs, enums with and without data (externally and
//! internally tagged), `Vec`, `HashMap<String, _>`, `serde_json::Value`, `u64`/`i8`, a
//! recursive tree, a tool without arguments and `#[args]` whole-object forms. A second set,
//! [`Awkward`], holds what only the validator and rule tests read (128-bit integers, `f32`,
//! maps of maps, tuples, nested and recursive enums, declared lengths, a dashed key).

#![allow(dead_code)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use toolset::{Json, ToolError, tool, toolset};

/// The corpus's per-run state: a log of what ran.
#[derive(Debug, Default)]
pub struct Desk {
    /// What the tools did, in order.
    pub log: Vec<String>,
}

/// Where an item lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// The folder's name.
    pub folder: String,
    /// A position inside the folder, if it matters.
    pub position: Option<Position>,
}

/// A cell in a grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    /// Zero-based row.
    pub row: u16,
    /// Zero-based column.
    pub col: u16,
}

/// How urgent something is (a unit-only enum).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Soon.
    Normal,
    /// Now.
    High,
}

/// One edit (an externally tagged enum with data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Edit {
    /// Give the item a new subject.
    Rename {
        /// The new subject.
        to: String,
    },
    /// Move the item.
    Move(Location),
    /// Add tags.
    Tag(Vec<String>),
    /// Remove everything.
    Clear,
}

/// Which items (an internally tagged enum).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Filter {
    /// Items from one sender.
    BySender {
        /// The sender's address.
        address: String,
    },
    /// Items older than some days.
    OlderThan {
        /// Age in days.
        days: u32,
    },
    /// Every item.
    All,
}

/// A node of a tree: a recursive type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Node {
    /// The node's label.
    pub label: String,
    /// The node's children.
    pub children: Vec<Node>,
}

/// What `outline` reports back: an object, so MCP gets an output schema.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutlineSummary {
    /// How many nodes the tree had.
    pub nodes: u32,
    /// The deepest level.
    pub depth: u32,
}

/// Arguments of `schedule`, taken as one object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEvent {
    /// What the event is called.
    pub title: String,
    /// When it starts, as an ISO-8601 date-time.
    pub starts_at: Option<String>,
    /// Who is invited; empty when omitted.
    #[serde(default)]
    pub attendees: Vec<String>,
}

/// Arguments of `find`, taken as one object: one of two ways to look something up.
///
/// It does not deny unknown fields: serde then ignores another variant's key
/// (`{"by":"text","id":{..},"text":".."}`), which the renderers' flattened object must
/// accept too.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Query {
    /// Look up by id.
    Id {
        /// The item's id.
        id: u32,
    },
    /// Look up by text.
    Text {
        /// Words to look for.
        text: String,
    },
}

/// Search the desk by free text.
#[tool(
    tier = "read_only",
    title = "Look up",
    example = r#"{"query": "invoices"}"#,
    example = r#"{"query": "overdue", "limit": 5}"#
)]
pub async fn lookup(
    _state: &Desk,
    /// Words to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> Json<Vec<String>> {
    Json(vec![format!("{query}:{}", limit.unwrap_or(10))])
}

/// Move an item somewhere else.
#[tool(tier = "reversible")]
pub async fn move_item(
    state: &mut Desk,
    /// The item to move.
    id: u32,
    /// Where to.
    target: Location,
) -> Result<(), ToolError> {
    state.log.push(format!("move {id} {target:?}"));
    Ok(())
}

/// Set how urgent an item is.
#[tool(tier = "reversible", idempotent)]
pub async fn set_priority(
    state: &mut Desk,
    /// The item.
    id: u32,
    /// The new priority.
    priority: Priority,
    /// The priority to fall back to once it is done, if any.
    after: Option<Priority>,
) {
    state
        .log
        .push(format!("priority {id} {priority:?} {after:?}"));
}

/// Apply edits to the items a filter picks.
#[tool(tier = "external_reversible")]
pub async fn apply_edits(
    state: &mut Desk,
    /// Which items.
    filter: Filter,
    /// What to do to each, in order.
    edits: Vec<Edit>,
) -> String {
    state.log.push(format!("edits {filter:?} {edits:?}"));
    format!("{} edits", edits.len())
}

/// Tag many items at once.
#[tool(tier = "reversible", name = "bulk-tag")]
pub async fn bulk_tag(
    state: &mut Desk,
    /// The items' ids.
    ids: Vec<u64>,
    /// Tags to add.
    tags: Vec<String>,
    /// How much to shift each item's rank by.
    shift: i8,
) {
    state.log.push(format!("tag {ids:?} {tags:?} {shift}"));
}

/// Attach free-form labels and metadata to an item.
#[tool(tier = "reversible")]
pub async fn annotate(
    state: &mut Desk,
    /// The item.
    id: u32,
    /// Label name to label value.
    labels: HashMap<String, String>,
    /// Anything else worth keeping.
    metadata: serde_json::Value,
) {
    state
        .log
        .push(format!("annotate {id} {labels:?} {metadata}"));
}

/// Outline a tree of notes.
#[tool(
    tier = "read_only",
    example = r#"{"root": {"label": "plan", "children": [{"label": "step", "children": []}]}}"#
)]
pub async fn outline(
    /// The tree's root.
    root: Node,
    /// Extra trees to merge in.
    more: Option<Vec<Node>>,
) -> Json<OutlineSummary> {
    fn count(node: &Node) -> (u32, u32) {
        node.children
            .iter()
            .map(count)
            .fold((1, 1), |(n, d), (cn, cd)| (n + cn, d.max(cd + 1)))
    }
    let (nodes, depth) = count(&root);
    let extra: u32 = more.iter().flatten().map(|n| count(n).0).sum();
    Json(OutlineSummary {
        nodes: nodes + extra,
        depth,
    })
}

/// Check that the desk answers.
#[tool(tier = "read_only", idempotent)]
pub async fn ping() -> &'static str {
    "pong"
}

/// Put an event on the calendar.
#[tool(tier = "external_reversible")]
pub async fn schedule(state: &mut Desk, #[args] event: NewEvent) {
    state.log.push(format!("schedule {event:?}"));
}

/// Find one item.
#[tool(tier = "read_only", deferred)]
pub async fn find(#[args] query: Query) -> String {
    format!("{query:?}")
}

/// WIRE money to an account. You prepare the transfer; a human sends it.
#[tool(tier = "irreversible", propose_only, late_result, title = "Wire funds")]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WireFunds {
    /// The receiving account's IBAN.
    pub iban: String,
    /// The amount, in cents.
    pub amount_cents: u64,
    /// How urgent the transfer is.
    pub priority: Option<Priority>,
}

toolset! {
    /// Tools with every awkward argument type the renderers must handle.
    pub Corpus<Desk> = [
        lookup, move_item, set_priority, apply_edits, bulk_tag, annotate, outline, ping,
        schedule, find, WireFunds,
    ];
}

/// A shape nested two enums deep: an enum whose variant holds another enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Wait for something.
    Wait(Priority),
    /// Run one of several edits.
    Run {
        /// The edit to run.
        edit: Edit,
        /// How urgent it is.
        priority: Option<Priority>,
    },
}

/// An expression: a recursive enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    /// A number.
    Literal(f64),
    /// The sum of two expressions.
    Sum(Box<Expr>, Box<Expr>),
}

/// Arguments of `tune`: bounds and lengths the renderers must state or restate.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tuning {
    /// A name of 1 to 40 characters.
    #[schemars(length(min = 1, max = 40))]
    pub name: String,
    /// A share between 0 and 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub share: f64,
    /// Distinct labels, at most five.
    #[schemars(length(max = 5))]
    pub labels: std::collections::BTreeSet<String>,
    /// A key whose name a serde rename gives a dash.
    #[serde(rename = "retry-after")]
    pub retry_after: Option<u16>,
}

/// Record counters of every width.
#[tool(tier = "reversible")]
pub async fn record(
    state: &mut Desk,
    /// A 64-bit count.
    count: u64,
    /// A 128-bit total.
    total: u128,
    /// A signed 128-bit offset.
    offset: i128,
    /// A single-precision ratio.
    ratio: f32,
    /// A pointer-sized index.
    index: usize,
) {
    state
        .log
        .push(format!("record {count} {total} {offset} {ratio} {index}"));
}

/// Store settings: maps, any JSON values and tuples.
#[tool(tier = "reversible")]
pub async fn configure(
    state: &mut Desk,
    /// Counters by name.
    counters: HashMap<String, u32>,
    /// Nested settings by section.
    sections: std::collections::BTreeMap<String, HashMap<String, String>>,
    /// Any extra values, in order.
    extras: Vec<serde_json::Value>,
    /// A point as (x, y).
    point: (i32, i32),
    /// A named weight.
    weight: Option<(String, f32)>,
) {
    state.log.push(format!(
        "configure {counters:?} {sections:?} {extras:?} {point:?} {weight:?}"
    ));
}

/// Plan steps and evaluate an expression.
#[tool(tier = "read_only")]
pub async fn plan_steps(
    /// The steps, in order.
    steps: Vec<Step>,
    /// An expression to evaluate.
    expr: Expr,
) -> String {
    format!("{steps:?} {expr:?}")
}

/// Tune the desk.
#[tool(tier = "reversible")]
pub async fn tune(state: &mut Desk, #[args] tuning: Tuning) {
    state.log.push(format!("tune {tuning:?}"));
}

toolset! {
    /// The awkward types only the third-party validators and the rule checks read: widths
    /// beyond 64 bits, floats, maps of maps, any values, tuples, nested and recursive
    /// enums, declared lengths and a dashed key.
    pub Awkward<Desk> = [record, configure, plan_steps, tune];
}
