//! Tool lists: one tool for a format chosen at run time ([`tool_value`]), any list of
//! specs ([`render_specs`]), and a set's default list, rendered once and cached
//! ([`tool_list`]), with the [`Order`] a list is in.

use super::{Format, Rendered};
use crate::{Autonomy, Policy, ToolSet, ToolSpec};
use serde_json::Value;

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

/// The default tool list of the set `T`, rendered for `format` in `order`: the list of a
/// fresh conversation's request under the set's default policy, that is
/// [`Request::new`](crate::Request::new)`(&Policy::new(..)).format(format).tool_list()`
/// (sorted by name for [`Order::ByName`]) at any autonomy but [`Autonomy::Off`], where a
/// request offers no local tool search. Tools declared `deferred` are left to tool search: the
/// list carries the search tool, and Anthropic and OpenAI Responses list the deferred
/// tools marked `defer_loading: true`.
///
/// Rendered on first use and cached in the set's render cache; every later call returns
/// the same `&'static str`, byte for byte. A conversation with a policy, activated tools
/// or history uses a [`Request`](crate::Request), built from the same cached fragments.
pub fn tool_list<T: ToolSet>(format: Format, order: Order) -> &'static str {
    T::render_cache().get_or_render(format, order, || {
        // Autonomy decides what runs, not what is offered, but for the local search, which
        // runs in the gate and so is not offered at `Off`: any other level gives this list.
        let policy = Policy::<T>::new(Autonomy::ExternalReversible);
        crate::Request::new(&policy)
            .format(format)
            .compose(order == Order::ByName)
    })
}
