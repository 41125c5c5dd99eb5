//! The words the macros read in the user's code, as named constants: the keys of
//! `#[tool(...)]`, the parameter marker, and the attributes of other crates they look at.

pub const TIER: &str = "tier";
pub const DESCRIPTION: &str = "description";
pub const NAME: &str = "name";
pub const TITLE: &str = "title";
pub const TIMEOUT_MS: &str = "timeout_ms";
pub const DEFERRED: &str = "deferred";
/// The tool's result may come after the model's turn (OpenAI Responses' `"async": true`).
/// Not `async`: every handler is an `async fn` already, and this says nothing of how it runs.
pub const LATE_RESULT: &str = "late_result";
pub const IDEMPOTENT: &str = "idempotent";
pub const PREVIEW: &str = "preview";
pub const PROPOSE_ONLY: &str = "propose_only";
pub const ESCALATE: &str = "escalate";
pub const READS: &str = "reads";
pub const SENDS: &str = "sends";
/// The one key that may be repeated: each `example = "..."` is one example.
pub const EXAMPLE: &str = "example";
/// `crate = "my_facade::toolset"`: where generated code finds the runtime crate, in
/// `#[tool(...)]` and in a set's `#[toolset(...)]`.
pub const CRATE: &str = "crate";

/// Every key of `#[tool(...)]`, in the order the docs list them.
pub const KEYS: &[&str] = &[
    TIER,
    DESCRIPTION,
    NAME,
    TITLE,
    TIMEOUT_MS,
    DEFERRED,
    LATE_RESULT,
    IDEMPOTENT,
    PREVIEW,
    ESCALATE,
    READS,
    SENDS,
    PROPOSE_ONLY,
    EXAMPLE,
    CRATE,
];

/// The attribute on a set's declaration in `toolset!`, and its keys.
pub const TOOLSET: &str = "toolset";
pub const SET_KEYS: &[&str] = &[CRATE];

/// What `reads = "..."` may name: the user's private data, content others wrote.
pub const READ_LABELS: &[&str] = &["private", "untrusted"];
/// What `sends = "..."` may name: out of the user's control.
pub const SEND_LABELS: &[&str] = &["outside"];

/// The parameter attribute marking the whole-object form: `#[args] input: MyArgs`.
pub const ARGS: &str = "args";

/// The parameter attribute mirroring an argument into an MCP request header:
/// `#[mcp_header("Region")] region: String` lists `"x-mcp-header": "Region"` on the
/// argument's property, and the MCP HTTP server refuses a call whose `Mcp-Param-Region`
/// header is missing or disagrees. Named for the specification's `x-mcp-header`: it is
/// MCP's alone (no other consumer sees it), and the value still comes from the body.
pub const MCP_HEADER: &str = "mcp_header";

/// Attributes an argument parameter may carry, moved onto its generated field.
pub const SERDE: &str = "serde";
pub const SCHEMARS: &str = "schemars";

/// `#[derive(...)]`, and the derive that makes a propose-only struct deserializable.
pub const DERIVE: &str = "derive";
pub const DESERIALIZE: &str = "Deserialize";

/// `#[serde(deny_unknown_fields)]`, which generated argument types carry.
pub const DENY_UNKNOWN_FIELDS: &str = "deny_unknown_fields";

/// The type a handler takes as its call's context.
pub const TOOL_CONTEXT: &str = "ToolContext";

/// `#[serde(...)]` keys on an argument with which serde no longer deserializes the field's
/// type itself, so it need not be `Deserialize`.
pub const SERDE_TAKES_OVER_DESERIALIZING: &[&str] =
    &["with", "deserialize_with", "skip", "skip_deserializing"];

/// `#[serde(...)]` keys with which schemars no longer asks the field's type for its schema.
pub const SERDE_TAKES_OVER_SCHEMA: &[&str] = &["with", "flatten"];
/// `#[schemars(...)]` keys with which schemars no longer asks the field's type for its schema.
pub const SCHEMARS_TAKES_OVER_SCHEMA: &[&str] = &["with", "schema_with", "flatten"];
/// `#[schemars(...)]` keys that write a constraint serde does not enforce (a range, a
/// length, a pattern, a `contains`), which only toolset's `constraints` feature checks.
pub const SCHEMARS_CONSTRAINTS: &[&str] = &["range", "length", "regex", "pattern", "contains"];
/// `#[schemars(inner(..))]`: the keys inside apply to an array's items.
pub const SCHEMARS_INNER: &str = "inner";

/// The wrappers a handler might take the per-run state (or the context) in by value:
/// `toolset!` refuses each around the set's state, and `#[tool]` names the type inside
/// when it says to borrow it.
pub const STATE_WRAPPERS: &[&str] = &["Arc", "Rc", "Box", "Mutex", "RwLock"];

/// The wrappers that share or lock a value, which no argument the model sends needs:
/// `#[tool]` refuses an owned parameter in one and says to borrow the state.
pub const SHARED_WRAPPERS: &[&str] = &["Arc", "Rc", "Mutex", "RwLock"];
