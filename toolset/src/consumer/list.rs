//! Tool lists: one tool for a format chosen at run time ([`tool_value`]), any list of
//! specs ([`render_specs`]), and a set's default list, rendered once and cached
//! ([`tool_list`](super::tool_list), in `default_list.rs`), with the [`Order`] a list is
//! in, and each tool's fragment as a list concatenates it ([`render_fragment`]).

use super::Format;
use super::error::ProviderError;
use super::format::with_consumers;
use crate::ToolSpec;
use serde_json::Value;

/// Makes the dispatch from a [`Format`] to its folder's `tool` from the list of
/// consumers, and checks that every folder has the verbs every consumer shares.
macro_rules! dispatch {
    (
        json { $( $(#[doc = $json_doc:literal])* $json:ident => $json_module:ident, )* }
        text { $( $(#[doc = $text_doc:literal])* $text:ident => $text_module:ident, )* }
    ) => {
        impl Format {
            /// One tool, rendered by the consumer's own `tool`.
            fn render(self, spec: &ToolSpec) -> Rendered {
                match self {
                    $(Format::$json => Rendered::Json(super::$json_module::tool(spec)),)*
                    $(Format::$text => Rendered::Text(super::$text_module::tool(spec)),)*
                }
            }
        }

        // Every consumer speaks the same verbs with the same signatures.
        const _: () = {
            $(
                let _: fn(&Value) -> Result<Vec<crate::ToolCall>, ProviderError> =
                    super::$json_module::calls;
                let _: fn(&[crate::ToolReply]) -> Value = super::$json_module::results;
                let _: fn(&ToolSpec) -> Value = super::$json_module::tool;
            )*
            $( let _: fn(&ToolSpec) -> String = super::$text_module::tool; )*
        };
    };
}

with_consumers!(dispatch);

/// One tool as a consumer renders it.
enum Rendered {
    Json(Value),
    Text(String),
}

/// The order tools are listed in. Either is stable across processes, so a provider's
/// prompt cache keeps matching the rendered prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Order {
    /// The order the tools are written in `toolset!`.
    Declared,
    /// Sorted by tool name (byte order).
    ByName,
}

impl Order {
    /// Every order, in a fixed order.
    pub const ALL: [Order; 2] = [Order::Declared, Order::ByName];

    /// The order's position in [`Order::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// One tool, rendered for `format`: what the consumer module's own `tool` gives (for
/// instance [`super::anthropic::tool`]), for a format chosen at run time.
///
/// The JSON formats give the consumer's tool object; [`Format::Prompt`] gives the tool's
/// prompt text as a JSON string.
pub fn tool_value(spec: &ToolSpec, format: Format) -> Value {
    match format.render(spec) {
        Rendered::Json(tool) => tool,
        Rendered::Text(text) => Value::String(text),
    }
}

/// A list of specs, rendered for `format` in the order given; not cached.
///
/// The JSON formats render a compact JSON array of tool objects; [`Format::Prompt`]
/// renders each tool's text, separated by a blank line.
pub fn render_specs(specs: &[&ToolSpec], format: Format) -> String {
    let mut tools = Vec::with_capacity(specs.len());
    let mut texts = Vec::new();
    for spec in specs {
        match format.render(spec) {
            Rendered::Json(tool) => tools.push(tool),
            Rendered::Text(text) => texts.push(text),
        }
    }
    if format.is_json() {
        Value::Array(tools).to_string()
    } else {
        texts.join("\n\n")
    }
}

/// One tool rendered as the bytes a list concatenates.
pub(crate) fn render_fragment(spec: &ToolSpec, format: Format) -> Box<str> {
    match format.render(spec) {
        Rendered::Json(tool) => tool.to_string().into_boxed_str(),
        Rendered::Text(text) => text.into_boxed_str(),
    }
}
