//! Rendering a tool for Gemini: a function declaration
//! `{"name","description","parameters"}`, parameters by Gemini's own schema rules
//! (`schema.rs`), or `{"name","description","parametersJsonSchema"}` for arguments those
//! rules cannot say exactly.

use super::schema::{Parameters, parameters};
use crate::spec::ToolSpec;
use serde_json::{Map, Value};

/// A tool as a Gemini function declaration (an entry of a `Tool`'s
/// `functionDeclarations`). A tool without arguments has no `parameters`: Gemini rejects
/// an object without properties there. A tool whose arguments the `Schema` subset can
/// only approximate (a map, any JSON value, a recursive type, a parameter name outside
/// Gemini's rule) carries `parametersJsonSchema` instead, which Gemini reads as JSON
/// Schema; [`why_parameters_json_schema`] says why.
pub fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    match parameters(spec.input_schema()) {
        Parameters::None => {}
        Parameters::Schema(schema) => {
            tool.insert("parameters".into(), schema);
        }
        Parameters::JsonSchema(schema, _) => {
            tool.insert("parametersJsonSchema".into(), schema);
        }
    }
    tool.into()
}

/// Why `spec`'s declaration carries `parametersJsonSchema` rather than `parameters`
/// (the first construct Gemini's `Schema` subset could only approximate), or `None`
/// when it carries `parameters` (or nothing, for a tool without arguments).
pub fn why_parameters_json_schema(spec: &ToolSpec) -> Option<String> {
    match parameters(spec.input_schema()) {
        Parameters::JsonSchema(_, why) => Some(why),
        Parameters::None | Parameters::Schema(_) => None,
    }
}
