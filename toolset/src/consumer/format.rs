//! [`Format`], the one list of consumers: a leaf every consumer's files import (to name
//! themselves in a [`ProviderError`](super::ProviderError), for instance), so it names no
//! consumer module. The dispatch from a format to its folder's `tool` is in `list.rs`.

use std::fmt;

/// The one list of consumers: calls the macro `$then` with it. `json` consumers render
/// tool objects, read calls and write results; `text` consumers render text. Each line is
/// a [`Format`] variant and the name of its folder in `consumer/`: `Format` is made from
/// it here, the dispatch to each folder (and the check of the signatures every consumer
/// shares) in `list.rs`.
macro_rules! with_consumers {
    ($then:ident) => {
        $then! {
            json {
                /// OpenAI Chat Completions: `tools` entries
                /// `{"type":"function","function":{"name","description","parameters","strict"}}`,
                /// calls from the assistant message's `tool_calls`, results as `role: "tool"`
                /// messages.
                OpenAiChat => openai_chat,
                /// OpenAI Responses: `tools` entries
                /// `{"type":"function","name","description","parameters","strict"}`, calls from
                /// the `function_call` items of `output`, results as `function_call_output` items.
                OpenAiResponses => openai_responses,
                /// Anthropic Messages: `tools` entries
                /// `{"name","description","input_schema","strict"}` (`strict` only where the
                /// tool uses strict tool use), calls from `tool_use` content blocks, results as
                /// one user message of `tool_result` blocks.
                Anthropic => anthropic,
                /// Google Gemini: `functionDeclarations` `{"name","description","parameters"}`,
                /// parameters in the OpenAPI 3.0 subset the Gemini API accepts; calls from
                /// `functionCall` parts, results as one user `Content` of `functionResponse` parts.
                Gemini => gemini,
                /// Model Context Protocol: `Tool` objects as a `tools/list` result lists them,
                /// calls from `tools/call` requests, results as `CallToolResult`s.
                Mcp => mcp,
            }
            text {
                /// Plain text for a system prompt: name, tier, description and arguments of each
                /// tool.
                Prompt => prompt,
            }
        }
    };
}
pub(super) use with_consumers;

/// Makes [`Format`] from the list of consumers.
macro_rules! format_enum {
    (
        json { $( $(#[doc = $json_doc:literal])* $json:ident => $json_module:ident, )* }
        text { $( $(#[doc = $text_doc:literal])* $text:ident => $text_module:ident, )* }
    ) => {
        /// A consumer of tool specs: a provider API, MCP, or a model reading plain text.
        ///
        /// Every JSON format renders a list as a JSON array of that consumer's tool
        /// objects, with each schema adapted to the consumer's rules, and has a parser for
        /// its calls and a writer for its results; [`Format::Prompt`] renders plain text.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Format {
            $( $(#[doc = $json_doc])* $json, )*
            $( $(#[doc = $text_doc])* $text, )*
        }

        impl Format {
            /// How many consumers the list holds.
            const COUNT: usize = [$(stringify!($json),)* $(stringify!($text),)*].len();

            /// Every format, in a fixed order.
            pub const ALL: [Format; Format::COUNT] = [$(Format::$json,)* $(Format::$text,)*];

            /// A short, stable name, the name of the consumer's module:
            #[doc = concat!($("`", stringify!($json_module), "`, ",)* $("`", stringify!($text_module), "`",)* ".")]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Format::$json => stringify!($json_module),)*
                    $(Format::$text => stringify!($text_module),)*
                }
            }

            /// True for the formats that render JSON (all but [`Format::Prompt`]).
            pub const fn is_json(self) -> bool {
                match self {
                    $(Format::$json => true,)*
                    $(Format::$text => false,)*
                }
            }
        }
    };
}

with_consumers!(format_enum);

impl Format {
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
