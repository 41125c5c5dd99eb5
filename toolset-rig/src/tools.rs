//! The set's tools as rig sees them: a definition each (name, description, argument
//! schema), read from the driver's own tool list, and the rig tool registered under it.
//!
//! The tool runs nothing: the hook ran the turn's program before rig dispatches the call,
//! and answers it at the dispatch boundary. The tool's own answer is the one a call gets
//! when no hook decided it (the hook is not on the agent, or rig dispatched a call that
//! was not in the turn the hook saw): that it was not gated, so nothing ran.

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;
use std::fmt;
use toolset::search::SEARCH_TOOL_NAME;

/// One tool as rig registers it.
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    pub(crate) name: String,
    description: String,
    parameters: Value,
}

/// The definitions in `list`, the driver's tool list in OpenAI Chat's shape (`[{"type":
/// "function", "function": {"name", "description", "parameters"}}]`), rendered without
/// strict mode so each schema is the tool's own. The tool search is left out: rig's list
/// is fixed when the agent is built, so the deferred tools it would find could never be
/// listed.
pub(crate) fn definitions(list: &str) -> Vec<Definition> {
    let list: Value = serde_json::from_str(list).unwrap_or(Value::Null);
    let entries = list.as_array().map(Vec::as_slice).unwrap_or_default();
    entries
        .iter()
        .filter_map(|entry| {
            let function = entry.get("function")?;
            let name = function.get("name")?.as_str()?;
            (name != SEARCH_TOOL_NAME).then(|| Definition {
                name: name.to_owned(),
                description: function
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                parameters: function
                    .get("parameters")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({"type": "object"})),
            })
        })
        .collect()
}

/// A tool name rig refused.
#[derive(Debug, Clone)]
pub struct ToolNameError {
    name: String,
}

impl fmt::Display for ToolNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rig refused the tool name {:?}; toolset's names are never empty, so this is a bug in toolset-rig: please report it",
            self.name
        )
    }
}

impl std::error::Error for ToolNameError {}

/// The rig tools for `definitions`.
pub(crate) fn rig_tools(definitions: &[Definition]) -> Result<Vec<DynamicTool>, ToolNameError> {
    definitions
        .iter()
        .map(|definition| {
            let name = ToolName::new(definition.name.clone()).map_err(|_| ToolNameError {
                name: definition.name.clone(),
            })?;
            let tool = definition.name.clone();
            Ok(DynamicTool::new(
                name,
                definition.description.clone(),
                definition.parameters.clone(),
                move |_arguments| {
                    let tool = tool.clone();
                    Box::pin(async move { Err::<ToolOutput, _>(not_gated(&tool)) })
                },
            ))
        })
        .collect()
}

/// The answer to a call no hook decided.
fn not_gated(tool: &str) -> ToolExecutionError {
    ToolExecutionError::refused(format!(
        "Not run: this call to {tool} was not checked by toolset. (Host: build the agent with `.toolset(&tools)` from toolset_rig::WithToolset, which adds the tools and the hook that gates them together.)"
    ))
}
