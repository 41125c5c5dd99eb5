//! Tool lists rendered for each consumer: OpenAI (Chat Completions and Responses),
//! Anthropic, Gemini, MCP and plain prompt text.
//!
//! Each renderer starts from a tool's canonical input schema (see [`crate::schema`]) and
//! adapts it to its consumer's rules; the module of each consumer documents the rules and
//! the rewrites. Rendering is deterministic: the same specs give the same bytes in every
//! process, so a provider's prompt cache keeps matching.
//!
//! - [`tool_list`] renders a set's default list once per (format, order) and hands out
//!   the same `&'static str` afterwards.
//! - [`render_specs`] renders any list of specs (a composed or filtered list), uncached.
//! - [`tool_value`] renders one tool.
//!
//! ```
//! use toolset::render::{tool_list, Format, Order};
//! use toolset::{tool, toolset};
//!
//! /// Tell the time.
//! #[tool(tier = "read_only")]
//! async fn now() -> String { "noon".into() }
//!
//! toolset! { Tools = [now]; }
//!
//! let list = tool_list::<Tools>(Format::Anthropic, Order::ByName);
//! assert!(list.starts_with('['));
//! assert!(std::ptr::eq(list, tool_list::<Tools>(Format::Anthropic, Order::ByName)));
//! ```

mod anthropic;
mod cache;
mod format;
mod gemini;
mod mcp;
mod openai_chat;
mod openai_responses;
mod prompt;
mod schema_adapt;
mod strict;

pub use cache::RenderCache;
pub use format::{Format, Order};

use crate::{ToolSet, ToolSpec};
use serde_json::Value;

/// One tool, rendered for `format`.
///
/// The JSON formats give the consumer's tool object; [`Format::Prompt`] gives the tool's
/// prompt text as a JSON string.
pub fn tool_value(spec: &ToolSpec, format: Format) -> Value {
    match format {
        Format::OpenAiChat => openai_chat::tool(spec),
        Format::OpenAiResponses => openai_responses::tool(spec),
        Format::Anthropic => anthropic::tool(spec),
        Format::Gemini => gemini::tool(spec),
        Format::Mcp => mcp::tool(spec),
        Format::Prompt => Value::String(prompt::tool(spec)),
    }
}

/// A list of specs, rendered for `format` in the order given; not cached.
///
/// The JSON formats render a compact JSON array of tool objects; [`Format::Prompt`]
/// renders each tool's text, separated by a blank line.
pub fn render_specs(specs: &[&ToolSpec], format: Format) -> String {
    if format == Format::Prompt {
        let texts: Vec<String> = specs.iter().map(|spec| prompt::tool(spec)).collect();
        return texts.join("\n\n");
    }
    let tools: Vec<Value> = specs.iter().map(|spec| tool_value(spec, format)).collect();
    Value::Array(tools).to_string()
}

/// The default tool list of the set `T`, rendered for `format` in `order`: every tool
/// not declared `deferred` (deferred tools are found through tool search instead).
///
/// Rendered on first use and cached in the set's [`RenderCache`]; every later call returns
/// the same `&'static str`, byte for byte.
pub fn tool_list<T: ToolSet>(format: Format, order: Order) -> &'static str {
    T::render_cache().get_or_render(format, order, || {
        let mut specs: Vec<&ToolSpec> = T::specs()
            .iter()
            .filter(|spec| !spec.is_deferred())
            .collect();
        if order == Order::ByName {
            specs.sort_by_key(|spec| spec.name());
        }
        render_specs(&specs, format)
    })
}
