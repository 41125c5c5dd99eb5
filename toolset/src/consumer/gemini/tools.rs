//! Rendering a tool for Gemini: a function declaration
//! `{"name","description","parameters"}`, parameters by Gemini's own schema rules
//! (`schema.rs`).

use super::schema::parameters;
use crate::ToolSpec;
use serde_json::{Map, Value};

/// A tool as a Gemini function declaration (an entry of a `Tool`'s
/// `functionDeclarations`). A tool without arguments has no `parameters`: Gemini rejects
/// an object without properties there.
pub fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    if let Some(parameters) = parameters(spec.input_schema()) {
        tool.insert("parameters".into(), parameters);
    }
    tool.into()
}
