//! Registration: what the compiler checks of a `#[tool]`, checked of a [`DynamicTool`]
//! before it joins a toolbox, every problem at once.
//!
//! The rules every declaration keeps are not written here but run here: the checker
//! `toolset_rules::declaration::check`, which `#[tool]` runs at compile time, so both
//! refuse a mistake in the same words (the name grammar every provider accepts, no name
//! reserved for a tool search, a description, a propose-only tool's tier that never
//! auto-runs, a time limit of at least 1 ms, a `read_only` tool not writing the state,
//! examples that are JSON objects). What only run time can get wrong is checked here: one
//! tool per name (the compiled set's included; a proxied MCP tool's `label_tool` too), a
//! handler or `propose_only`, a handler borrowing the toolbox's state type, a schema that
//! is not a JSON Schema object or that the gate's validator cannot compile (the gate must
//! be able to check every call), examples the input schema refuses, and `x-mcp-header`
//! annotations MCP could not honour (the rules of `#[mcp_header]`, the header name's
//! grammar shared through `toolset_rules::is_header_name`).

use super::dynamic::{DynamicTool, Handler};
use super::runtime_tool::RuntimeTool;
use crate::declaration::DeclarationProblem;
use crate::schema::MCP_HEADER;
use crate::spec::{RuntimeSpec, ToolSpec};
use serde_json::{Value, json};
use std::fmt;
use toolset_rules::declaration::{self, Declaration, JsonKind, Part, StateUse};

/// Runtime tools that could not join a toolbox: every problem of every tool, at once.
/// The toolbox they were offered to is left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationError {
    problems: Vec<DeclarationProblem>,
}

impl RegistrationError {
    pub(crate) fn new(problems: Vec<DeclarationProblem>) -> Self {
        RegistrationError { problems }
    }

    /// Every problem, in the order the tools were offered.
    pub fn problems(&self) -> &[DeclarationProblem] {
        &self.problems
    }
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "{count} problem{} with runtime tools:",
            if count == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n- tool \"{}\": {}", problem.tool, problem.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistrationError {}

/// The input schema of a tool declared without one: no arguments at all.
pub(crate) fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// The per-run state type of the toolbox a tool joins (its set's `State`).
pub(crate) struct StateType {
    /// The type.
    pub(crate) id: std::any::TypeId,
    /// Its name, for the messages.
    pub(crate) name: &'static str,
    /// The set's name.
    pub(crate) set: &'static str,
}

/// Checks `tool`; `taken` says whether a name is already used (by the compiled set, by a
/// runtime tool already in the toolbox, or by one registered in the same batch); `state`
/// is the state the toolbox's calls run against, the only one a handler may borrow
/// (`None` for a namespace's proxied tools, whose handlers forward and borrow nothing).
pub(crate) fn register(
    tool: DynamicTool,
    taken: impl Fn(&str) -> bool,
    state: Option<StateType>,
) -> Result<RuntimeTool, Vec<DeclarationProblem>> {
    let mut messages: Vec<String> = Vec::new();
    let mut problem = |message: String| messages.push(message);
    // The rules every declaration keeps, compiled or runtime, in the compiler's words.
    let examples: Vec<Option<JsonKind>> = tool
        .examples
        .iter()
        .map(|example| Some(json_kind(example)))
        .collect();
    let declaration = Declaration {
        name: &tool.name,
        description: Some(&tool.description),
        tier: Some(tool.tier),
        propose_only: tool.propose_only,
        timeout_ms: tool.timeout_ms,
        state: match &tool.handler {
            Some(Handler::Stateful(handler)) => Some(StateUse {
                type_name: handler.state_name,
                writes: handler.writes,
            }),
            _ => None,
        },
        examples: &examples,
    };
    let shared = declaration::check(&declaration);
    let name_holds = !shared.iter().any(|found| found.part() == Part::Name);
    for found in shared {
        problem(found.to_string());
    }
    // What only run time can get wrong.
    if name_holds && taken(&tool.name) {
        problem(
            "another tool of the toolbox (compiled or runtime) already has this name; rename one \
             of them (proxied tools are namespaced `label_tool`)"
                .to_owned(),
        );
    }
    match (&tool.handler, tool.propose_only) {
        (None, false) => problem(
            "it has no handler: give it one with `.handler(..)` (or `.reads_state(..)`, \
             `.writes_state(..)`), or mark it `.propose_only()` \
             if the host acts on approved calls itself"
                .to_owned(),
        ),
        (Some(_), true) => {
            problem("it is propose-only but has a handler: remove one of the two".to_owned())
        }
        _ => {}
    }
    if let Some(Handler::Stateful(handler)) = &tool.handler {
        match &state {
            Some(state) if handler.state != state.id => problem(format!(
                "its handler borrows the state `{}`, but the toolbox's set `{}` runs its calls \
                 against `{}`: a handler can only borrow that state; take `&{}` (or `&mut {}`), \
                 or register it on a toolbox of a set with state `{}`",
                handler.state_name,
                state.set,
                state.name,
                state.name,
                state.name,
                handler.state_name
            )),
            Some(_) => {}
            None => problem(format!(
                "its handler borrows the state `{}`, and a namespace's tools run against none; \
                 give it `.handler(..)`",
                handler.state_name
            )),
        }
    }
    let input_schema = tool.input_schema.unwrap_or_else(no_arguments);
    for message in schema_problems("input schema", &input_schema, true) {
        problem(message);
    }
    for message in header_problems(&input_schema) {
        problem(message);
    }
    if let Some(output) = &tool.output_schema {
        for message in schema_problems("output schema", output, false) {
            problem(message);
        }
    }
    let spec = ToolSpec::runtime(RuntimeSpec {
        name: tool.name.clone(),
        title: tool.title,
        description: tool.description,
        tier: tool.tier,
        input_schema,
        output_schema: tool.output_schema,
        examples: tool.examples,
        timeout_ms: tool.timeout_ms,
        deferred: tool.deferred,
        late_result: tool.late_result,
        has_preview: tool.preview.is_some(),
        idempotent: tool.idempotent,
        propose_only: tool.propose_only,
        labels: tool.labels,
    });
    // The gate validates every call with the input schema's validator, and apply every
    // output with the output schema's: compile both now, so a schema the validator cannot
    // compile is the declaration's problem, never a call's.
    if messages.is_empty()
        && let Some(why) = spec.declaration_problem()
    {
        messages.push(format!(
            "the gate's validator cannot compile a schema: {why}"
        ));
    }
    // Each example is checked as the gate checks a call: an object the validator accepts.
    if messages.is_empty() {
        for (position, example) in spec.examples().iter().enumerate() {
            if let Some(why) = example_problem(&spec, example) {
                messages.push(format!(
                    "its example {} ({}) is refused by the gate: {why}; fix or remove it",
                    position + 1,
                    crate::arguments::shortened(&example.to_string()),
                ));
            }
        }
    }
    if !messages.is_empty() {
        return Err(messages
            .into_iter()
            .map(|message| DeclarationProblem {
                tool: spec.name().to_owned(),
                message,
            })
            .collect());
    }
    Ok(RuntimeTool::new(spec, tool.handler, tool.preview))
}

/// What `value` is, as the shared rules name it.
fn json_kind(value: &Value) -> JsonKind {
    match value {
        Value::Null => JsonKind::Null,
        Value::Bool(_) => JsonKind::Bool,
        Value::Number(_) => JsonKind::Number,
        Value::String(_) => JsonKind::String,
        Value::Array(_) => JsonKind::Array,
        Value::Object(_) => JsonKind::Object,
    }
}

/// Why the gate would refuse `example`, an object (the shared rules refuse any other
/// value first), as a call's arguments, if it would: a violation of the input schema.
/// Without the `constraints` feature nothing can check it, so it is refused (fail closed).
fn example_problem(spec: &ToolSpec, example: &Value) -> Option<String> {
    if !cfg!(feature = "constraints") {
        return Some(
            "nothing can check a runtime tool's example without the `constraints` feature; \
             enable it or remove the example"
                .to_owned(),
        );
    }
    let problems: Vec<String> = spec
        .schema_problems(example)
        .into_iter()
        .map(|(_, message)| message)
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// What is wrong with the `x-mcp-header` annotations of an input `schema` (SEP-2243), the
/// rules `#[mcp_header]` keeps at compile time: each on a top-level property of a string,
/// integer, number or boolean, naming an HTTP field name, no two the same (case ignored).
/// One anywhere else could never be sent or checked as MCP says: refused, not ignored.
fn header_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let top: Vec<&Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.values().collect())
        .unwrap_or_default();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (argument, property) in properties {
            let Some(header) = property.get(MCP_HEADER) else {
                continue;
            };
            let Some(name) = header
                .as_str()
                .filter(|name| toolset_rules::is_header_name(name))
            else {
                problems.push(format!(
                    "the argument `{argument}`'s `\"{MCP_HEADER}\": {header}` is not an HTTP \
                     header name: write ASCII letters, digits or ``!#$%&'*+-.^_`|~`` only, e.g. \
                     `\"{MCP_HEADER}\": \"Region\"`"
                ));
                continue;
            };
            let primitive = |kind: &Value| {
                matches!(
                    kind.as_str(),
                    Some("string" | "integer" | "number" | "boolean")
                )
            };
            // One primitive type, or several of them with `null` (an optional argument).
            let primitive = match property.get("type") {
                Some(Value::Array(kinds)) => kinds
                    .iter()
                    .all(|kind| primitive(kind) || kind.as_str() == Some("null")),
                Some(kind) => primitive(kind),
                None => false,
            };
            if !primitive {
                problems.push(format!(
                    "the argument `{argument}` is mirrored into `Mcp-Param-{name}`, but only a \
                     string, an integer, a number or a boolean can be (its schema must say \
                     `\"type\"` as one of those); remove `\"{MCP_HEADER}\"` or change its type"
                ));
            }
            if named.iter().any(|other| other.eq_ignore_ascii_case(name)) {
                problems.push(format!(
                    "`Mcp-Param-{name}` already mirrors another argument (header names ignore \
                     case): give each argument its own header name"
                ));
            }
            named.push(name.to_owned());
        }
    }
    // Anywhere but on a top-level property, no client sends it.
    let mut stack: Vec<&Value> = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                let is_top = top.iter().any(|property| std::ptr::eq(*property, value));
                if map.contains_key(MCP_HEADER) && !is_top {
                    problems.push(format!(
                        "`\"{MCP_HEADER}\"` is allowed only on a top-level property of the \
                         arguments (a client sends one header per argument it mirrors); move it \
                         there or remove it"
                    ));
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    problems
}

/// What is wrong with `schema` as a tool's `which` schema: not an object, not of an
/// object's type (arguments, and MCP's structured results, are JSON objects), or not valid
/// against the JSON Schema meta-schema.
fn schema_problems(which: &str, schema: &Value, arguments: bool) -> Vec<String> {
    let Value::Object(map) = schema else {
        return vec![format!(
            "the {which} is not a JSON Schema object but {}; write an object schema such as \
             {{\"type\": \"object\", \"properties\": {{..}}}}",
            crate::arguments::got(schema)
        )];
    };
    let mut problems = Vec::new();
    if arguments && map.get("type").and_then(Value::as_str) != Some("object") {
        problems.push(format!(
            "the {which} must say `\"type\": \"object\"`: a model's arguments are a JSON object \
             of named arguments"
        ));
    }
    #[cfg(feature = "constraints")]
    if let Err(error) = jsonschema::meta::validate(schema) {
        let at = error.instance_path().to_string();
        let at = if at.is_empty() { "/".to_owned() } else { at };
        problems.push(format!(
            "the {which} is not a valid JSON Schema (at {at}: {error}); fix it"
        ));
    }
    #[cfg(not(feature = "constraints"))]
    problems.push(format!(
        "the {which} cannot be checked: runtime tools need the `constraints` feature of toolset \
         (the `jsonschema` validator the gate checks their calls with); turn it on: toolset = \
         {{ version = \"..\", features = [\"constraints\"] }}"
    ));
    problems
}
