//! Tool lists: one tool for a format chosen at run time ([`tool_value`]), any list of
//! specs ([`render_specs`]), and a set's default list, rendered once and cached
//! ([`tool_list`](super::tool_list), in `default_list.rs`), with the [`Order`] a list is
//! in, and each tool's fragment as a list concatenates it ([`render_fragment`]).

use super::Format;
use super::error::ProviderError;
use super::format::with_consumers;
use super::strict_budget::{StrictCost, StrictDowngrade, spend};
use crate::spec::ToolSpec;
use serde_json::Value;
use std::sync::OnceLock;

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
                let _: fn(&Value) -> Result<Vec<crate::call::ToolCall>, ProviderError> =
                    super::$json_module::calls;
                let _: fn(&[crate::output::ToolReply]) -> Value = super::$json_module::results;
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

/// [`tool_value`], or with `strict` false the tool's form without `strict` in the formats
/// that have strict tools (what a list renders for a tool its budget took `strict` from).
pub(crate) fn tool_value_as(spec: &ToolSpec, format: Format, strict: bool) -> Value {
    match strict {
        true => tool_value(spec, format),
        false => plain_tool(spec, format).unwrap_or_else(|| tool_value(spec, format)),
    }
}

/// A list of specs, rendered for `format` in the order given; not cached.
///
/// The JSON formats render a compact JSON array of tool objects; [`Format::Prompt`]
/// renders each tool's text, separated by a blank line. The list is held to the
/// provider's limits on one request's strict tools as a request's list is (see
/// [`Request::strict_downgrades`](crate::request::Request::strict_downgrades)): the strict tools
/// past them, in list order, are rendered without `strict`.
pub fn render_specs(specs: &[&ToolSpec], format: Format) -> String {
    render_specs_reporting(specs, format).0
}

/// [`render_specs`], and the tools it rendered without `strict` because the ones before
/// them spent the provider's limits on one request's strict tools, in list order.
pub fn render_specs_reporting(
    specs: &[&ToolSpec],
    format: Format,
) -> (String, Vec<StrictDowngrade>) {
    let fragments: Vec<Fragment> = specs
        .iter()
        .map(|spec| Fragment::render(spec, format))
        .collect();
    let (keeps, downgrades) = spend(
        format,
        specs
            .iter()
            .zip(&fragments)
            .map(|(spec, fragment)| (spec.name(), fragment.strict())),
    );
    let pieces: Vec<&str> = specs
        .iter()
        .zip(&fragments)
        .zip(keeps)
        .map(|((spec, fragment), keep)| fragment.as_listed(spec, format, keep))
        .collect();
    let list = if format.is_json() {
        format!("[{}]", pieces.join(","))
    } else {
        pieces.join("\n\n")
    };
    (list, downgrades)
}

/// One tool's fragment in one format, as a list concatenates it: its bytes, what its
/// strict form costs of a request's budget (`None` when it is not strict in the format),
/// and, rendered the first time a request's budget takes `strict` from it, its bytes
/// without `strict`. Kept in the render cache, so composing a list whose strict tools are
/// within the provider's limits reads no schema.
#[derive(Debug)]
pub(crate) struct Fragment {
    text: Box<str>,
    strict: Option<StrictCost>,
    plain: OnceLock<Box<str>>,
}

impl Fragment {
    /// `spec` rendered for `format`.
    pub(crate) fn render(spec: &ToolSpec, format: Format) -> Self {
        let text = render_fragment(spec, format);
        let strict = cost_in(spec, format);
        // One decision: the cost says strict exactly where the consumer rendered it.
        debug_assert_eq!(
            strict.is_some(),
            serde_json::from_str::<Value>(&text)
                .ok()
                .is_some_and(|tool| {
                    tool.get("function").unwrap_or(&tool).get("strict") == Some(&Value::Bool(true))
                }),
            "{} in {format}: the strict cost and the fragment disagree",
            spec.name()
        );
        Fragment {
            text,
            strict,
            plain: OnceLock::new(),
        }
    }

    /// A fragment that is never strict (a provider's hosted tool).
    pub(crate) fn fixed(text: Box<str>) -> Self {
        Fragment {
            text,
            strict: None,
            plain: OnceLock::new(),
        }
    }

    /// What its strict form costs, or `None` when it is not strict.
    pub(crate) fn strict(&self) -> Option<StrictCost> {
        self.strict
    }

    /// Its bytes in a list that lets it keep `strict` (`keep`) or not. `spec` is the spec
    /// it was rendered from: the form without `strict` is rendered from it the first time.
    pub(crate) fn as_listed(&self, spec: &ToolSpec, format: Format, keep: bool) -> &str {
        if keep || self.strict.is_none() {
            return &self.text;
        }
        self.plain.get_or_init(|| match plain_tool(spec, format) {
            Some(tool) => tool.to_string().into_boxed_str(),
            None => self.text.clone(),
        })
    }
}

/// What `spec`'s strict form costs in `format`, or `None` where it is not strict there:
/// the same decision its consumer's `tool` renders (`strict: true` exactly when `Some`).
fn cost_in(spec: &ToolSpec, format: Format) -> Option<StrictCost> {
    match format {
        Format::OpenAiChat | Format::OpenAiResponses => super::openai_strict::cost(spec),
        Format::Anthropic => super::anthropic::strict::cost(spec),
        _ => None,
    }
}

/// `spec` rendered for `format` without `strict`, where `format` has strict tools: OpenAI
/// `strict: false` with the plain schema, Anthropic no `strict` key and the plain schema.
fn plain_tool(spec: &ToolSpec, format: Format) -> Option<Value> {
    match format {
        Format::OpenAiChat => Some(super::openai_chat::tools::tool_as(spec, false)),
        Format::OpenAiResponses => Some(super::openai_responses::tools::tool_as(spec, false)),
        Format::Anthropic => Some(super::anthropic::tools::tool_as(spec, false)),
        _ => None,
    }
}

/// One tool rendered as the bytes a list concatenates.
pub(crate) fn render_fragment(spec: &ToolSpec, format: Format) -> Box<str> {
    match format.render(spec) {
        Rendered::Json(tool) => tool.to_string().into_boxed_str(),
        Rendered::Text(text) => text.into_boxed_str(),
    }
}
