//! The deferred tools a conversation has activated.

use crate::consumer::openai_responses::namespace;
use crate::report::Report;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The deferred tools a conversation has activated, in activation order.
///
/// The host keeps one per conversation (it serializes as a JSON array of names) and hands
/// it to every [`Request`](crate::request::Request) of that conversation. Names are only ever appended, so the
/// activated section of a list only grows at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Activations {
    names: Vec<String>,
}

impl Activations {
    /// No tool activated yet.
    pub fn new() -> Self {
        Activations::default()
    }

    /// Activates `name`; returns false when it already was.
    pub fn activate(&mut self, name: impl Into<String>) -> bool {
        let name = name.into();
        if self.names.contains(&name) {
            return false;
        }
        self.names.push(name);
        true
    }

    /// The activated names, in activation order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether `name` was activated.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|activated| activated == name)
    }

    /// Records what the calls of `report` activated (a search's finds, or any tool's
    /// [`ToolOutput::activates`](crate::ToolOutput::activates)); `apply` has already checked every name against the set
    /// and the policy (a name the set lacks, or a tool the policy hides, failed the call).
    /// Returns how many names were new.
    pub fn record(&mut self, report: &Report) -> usize {
        let mut added = 0;
        for (_, outcome) in report.outcomes() {
            if let crate::outcome::Outcome::Done(output) = outcome {
                for name in output.activates() {
                    added += usize::from(self.activate(name.clone()));
                }
            }
        }
        added
    }

    /// Records the tools a provider's *hosted* search loaded in `response`, to call
    /// before gating that response's calls (the model may call a tool in the same
    /// response that found it). Reads Anthropic `tool_search_tool_result` blocks (their
    /// `tool_reference`s) in a message, and OpenAI Responses `tool_search_output` items
    /// (their `tools`; a `namespace` entry's tools by their local names, `label_tool`) in
    /// a response or its `output` array; anything else is ignored.
    /// Returns the names that were new.
    pub fn record_hosted(&mut self, response: &Value) -> Vec<String> {
        let mut found = Vec::new();
        let items = response
            .get("content")
            .or_else(|| response.get("output"))
            .unwrap_or(response);
        for item in items.as_array().into_iter().flatten() {
            match item.get("type").and_then(Value::as_str) {
                Some("tool_search_tool_result") => {
                    let references = item.pointer("/content/tool_references");
                    for reference in references.and_then(Value::as_array).into_iter().flatten() {
                        if let Some(name) = reference.get("tool_name").and_then(Value::as_str) {
                            found.push(name.to_owned());
                        }
                    }
                }
                Some("tool_search_output") => {
                    let tools = item.get("tools").and_then(Value::as_array);
                    for tool in tools.into_iter().flatten() {
                        let Some(name) = tool.get("name").and_then(Value::as_str) else {
                            continue;
                        };
                        if tool.get("type").and_then(Value::as_str) != Some("namespace") {
                            found.push(name.to_owned());
                            continue;
                        }
                        // A namespace's loaded tools, each by its local name `label_tool`.
                        let inner = tool.get("tools").and_then(Value::as_array);
                        for function in inner.into_iter().flatten() {
                            if let Some(inner) = function.get("name").and_then(Value::as_str) {
                                found.push(namespace::local_name(Some(name), inner));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        found.retain(|name| self.activate(name.clone()));
        found
    }
}
