//! OpenAI Responses namespaces: a toolbox namespace (an MCP server's tools, `McpTools`) as
//! one `{"type": "namespace", "name": <label>, "description": …, "tools": [<function>, …]}`
//! entry, and a `function_call` carrying `namespace` read back as the local name.
//!
//! A namespaced tool's local name is `label_tool` (shortened where too long or invalid,
//! always starting with `label_`); inside its namespace it is `tool`, the local name
//! without the prefix `label_`, and a call `{"namespace": label, "name": tool}` is read as
//! `label_tool`, exactly the inverse. A call to a namespace the request does not list, or
//! to a name its namespace does not have, is so a name no tool has, which the gate refuses
//! as unknown, listing what is offered.
//!
//! Only this format has namespaces (Chat Completions, Anthropic, Gemini and MCP list the
//! same tools flat, under their local names).

use crate::consumer::Format;
use crate::spec::ToolSpec;
use serde_json::{Value, json};

/// Whether `format` lists a namespace's tools inside one namespace entry.
pub(crate) fn has_namespaces(format: Format) -> bool {
    format == Format::OpenAiResponses
}

/// The name a namespace's tool goes by inside it: its local name without `label_`.
pub(crate) fn inner_name<'a>(label: &str, local: &'a str) -> &'a str {
    local
        .strip_prefix(label)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or(local)
}

/// The local name a `function_call` names: `namespace_name` when the call carries a
/// namespace (the inverse of [`inner_name`]), `name` otherwise.
pub(crate) fn local_name(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(namespace) => format!("{namespace}_{name}"),
        None => name.to_owned(),
    }
}

/// The tool `spec` of the namespace `label` as an entry of its `tools`: the Responses
/// function with its name inside the namespace.
///
/// With `strict` false never strict (a tool a request's strict budget took `strict` from:
/// `strict: false` and the plain schema, as the flat list has it).
pub(crate) fn inner_tool_as(spec: &ToolSpec, label: &str, strict: bool) -> Value {
    let mut tool = super::tools::tool_as(spec, strict);
    if let Some(name) = tool.get_mut("name") {
        *name = inner_name(label, spec.name()).into();
    }
    tool
}

/// The namespace `label` with `tools` (each as [`inner_tool_as`] renders it): the value of a
/// `tools` entry, or of a `tool_search_output`'s.
pub(crate) fn namespace(label: &str, description: &str, tools: Vec<Value>) -> Value {
    json!({"type": "namespace", "name": label, "description": description, "tools": tools})
}

/// The bytes of a namespace entry before its tools: `{"type":"namespace",…,"tools":[`;
/// [`CLOSE`] ends it.
pub(crate) fn open(label: &str, description: &str) -> String {
    let whole = namespace(label, description, Vec::new()).to_string();
    match whole.strip_suffix(CLOSE) {
        Some(open) => open.to_owned(),
        // `tools` is the last key written (serde_json keeps insertion order here).
        None => whole,
    }
}

/// The bytes that end a namespace entry after its tools.
pub(crate) const CLOSE: &str = "]}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_and_local_names_are_inverses() {
        assert_eq!(inner_name("crm", "crm_search"), "search");
        assert_eq!(
            inner_name("crm", "crm_files_read_0123456789"),
            "files_read_0123456789"
        );
        assert_eq!(local_name(Some("crm"), "search"), "crm_search");
        assert_eq!(local_name(None, "crm_search"), "crm_search");
        for local in ["crm_search", "crm_a_b"] {
            assert_eq!(local_name(Some("crm"), inner_name("crm", local)), local);
        }
    }

    #[test]
    fn an_entry_is_its_open_bytes_its_tools_and_close() {
        let open = open("crm", "The CRM's \"tools\".");
        let bytes = format!("{open}{{\"type\":\"function\",\"name\":\"a\"}}{CLOSE}");
        let value: Value = serde_json::from_str(&bytes).expect("valid JSON");
        assert_eq!(
            value,
            json!({"type": "namespace", "name": "crm", "description": "The CRM's \"tools\".",
                   "tools": [{"type": "function", "name": "a"}]})
        );
    }
}
