//! The consumers a tool list can be rendered for, and the orders it can be listed in.

use std::fmt;

/// A consumer of tool specs: a provider API, MCP, or a model reading plain text.
///
/// Every JSON format renders a list as a JSON array of that consumer's tool objects, with
/// each schema adapted to the consumer's rules; [`Format::Prompt`] renders plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// OpenAI Chat Completions `tools`:
    /// `{"type":"function","function":{"name","description","parameters","strict"}}`.
    OpenAiChat,
    /// OpenAI Responses `tools`: `{"type":"function","name","description","parameters","strict"}`.
    OpenAiResponses,
    /// Anthropic Messages `tools`: `{"name","description","input_schema"}`.
    Anthropic,
    /// Gemini `functionDeclarations`: `{"name","description","parameters"}`, parameters in
    /// the OpenAPI 3.0 subset the Gemini API accepts.
    Gemini,
    /// MCP `Tool` objects, as a `tools/list` result lists them.
    Mcp,
    /// Plain text for a system prompt: name, tier, description and arguments of each tool.
    Prompt,
}

impl Format {
    /// Every format, in a fixed order.
    pub const ALL: [Format; 6] = [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
        Format::Prompt,
    ];

    /// A short, stable name: `openai_chat`, `openai_responses`, `anthropic`, `gemini`,
    /// `mcp`, `prompt`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai_chat",
            Format::OpenAiResponses => "openai_responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Mcp => "mcp",
            Format::Prompt => "prompt",
        }
    }

    /// True for the formats that render JSON (all but [`Format::Prompt`]).
    pub const fn is_json(self) -> bool {
        !matches!(self, Format::Prompt)
    }

    /// The format's position in [`Format::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_the_position_in_all() {
        for (position, format) in Format::ALL.into_iter().enumerate() {
            assert_eq!(format.index(), position);
        }
        for (position, order) in Order::ALL.into_iter().enumerate() {
            assert_eq!(order.index(), position);
        }
    }
}
