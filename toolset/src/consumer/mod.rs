//! Everything about the consumers of a tool set, one module each: OpenAI Chat Completions
//! and Responses, Anthropic Messages, Google Gemini, MCP and plain prompt text.
//!
//! A model is offered tools in its API's format, asks for them in that format, and expects
//! the results back in it too. Each consumer's module holds all three directions and the
//! schema rules that are its alone; what they share lives here once ([`Format`], the one
//! list of consumers, the tool lists and their cache, the schema adaptation steps, the
//! payload errors).
//!
//! | consumer | tools | calls in | results out |
//! |---|---|---|---|
//! | OpenAI Chat Completions | [`openai_chat::tool`] | [`ToolCall::from_openai_chat`] | [`openai_chat::results`] |
//! | OpenAI Responses | [`openai_responses::tool`] | [`ToolCall::from_openai_responses`] | [`openai_responses::results`] |
//! | Anthropic Messages | [`anthropic::tool`] | [`ToolCall::from_anthropic`] | [`anthropic::results`] |
//! | Google Gemini | [`gemini::tool`] | [`ToolCall::from_gemini`] | [`gemini::results`] |
//! | MCP | [`mcp::tool`] | [`ToolCall::from_mcp`] | [`mcp::results`] |
//! | prompt text | [`prompt::tool`] | – | – |
//!
//! Every consumer with calls has the same three functions: `calls(payload)` (what
//! `ToolCall::from_*` delegates to), `results(&[ToolReply])` (the results of one batch in
//! the consumer's natural wire shape) and `tool(spec)`.
//!
//! # Tool lists
//!
//! Each consumer starts from a tool's canonical input schema (see [`crate::schema`]) and
//! adapts it to its rules; each module documents its rules and rewrites. Rendering is
//! deterministic: the same specs give the same bytes in every process, so a provider's
//! prompt cache keeps matching.
//!
//! - [`Request::tool_list`](crate::request::Request::tool_list) composes one request's list (its
//!   policy, activated, injected and history tools) from per-tool fragments rendered once
//!   per format: the list to send when a conversation defers tools or has a policy.
//! - [`tool_list`] renders a set's default list (a fresh conversation's request) once per
//!   (format, order) and hands out the same `&'static str` afterwards.
//! - [`render_specs`] renders any list of specs (a composed or filtered list), uncached;
//!   [`render_specs_reporting`] also says which tools it rendered without `strict`.
//! - [`tool_value`] renders one tool for a [`Format`] chosen at run time.
//!
//! # Strict tools and their budgets
//!
//! OpenAI (strict mode) and Anthropic (strict tool use) can constrain a tool's arguments
//! to its schema. Each tool is rendered strict exactly when its schema fits the provider's
//! strict subset ([`openai_chat::why_not_strict`], [`anthropic::why_not_strict`] say why
//! not), and every list holds its strict tools to the provider's per-request limits
//! ([`StrictLimit`]): past them, tools lose `strict` first fit in list order, and the list
//! says which ([`StrictDowngrade`],
//! [`Request::strict_downgrades`](crate::request::Request::strict_downgrades)). The gate checks every
//! call's arguments whether or not the provider constrained them.
//!
//! # Tool choice
//!
//! Where the provider can be told which of the listed tools the model may call (OpenAI's
//! `tool_choice` `allowed_tools`, Gemini's `toolConfig` `allowedFunctionNames`),
//! [`Request::tool_choice`](crate::request::Request::tool_choice) renders exactly what the request's
//! gate permits, in the [`ChoiceMode`] the host asked for, and
//! [`Request::fixed_tools`](crate::request::Request::fixed_tools) gives a list whose bytes stay
//! the same for a whole conversation together with the choice that restricts it
//! ([`FixedTools`]). Anthropic has no such choice; it keeps a list fixed with
//! mid-conversation tool changes instead:
//! [`Request::tool_changes`](crate::request::Request::tool_changes) gives the list (tools that wait
//! for an activation marked `defer_loading`) and the `tool_addition` / `tool_removal`
//! blocks for the next message ([`ToolChanges`], from what the conversation has
//! [`Announced`]). MCP and prompt text have neither ([`ToolChoiceError`]).
//!
//! ```
//! use toolset::consumer::{tool_list, Format, Order};
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
//!
//! # Calls and results
//!
//! ```
//! use serde_json::json;
//! use toolset::{ToolCall, ToolOutput, consumer::openai_chat};
//! use toolset::output::ToolReply;
//!
//! let message = json!({
//!     "role": "assistant",
//!     "content": null,
//!     "tool_calls": [{
//!         "id": "call_1",
//!         "type": "function",
//!         "function": {"name": "search", "arguments": "{\"query\":\"invoice\"}"}
//!     }]
//! });
//! let calls = ToolCall::from_openai_chat(&message)?;
//! assert_eq!(calls[0].name, "search");
//!
//! let results = [ToolReply::to(&calls[0], ToolOutput::text("2 hits"))];
//! let messages = openai_chat::results(&results);
//! assert_eq!(messages[0]["tool_call_id"], "call_1");
//! # Ok::<(), toolset::consumer::ProviderError>(())
//! ```
//!
//! Parsing checks the *envelope* strictly: a missing or mistyped field is a
//! [`ProviderError`] that names the consumer, the JSON path of the problem relative to the
//! value passed in, and what was expected there. Parsing never panics.
//!
//! The *arguments* are not checked here: they are kept as the model's raw JSON text (for
//! Anthropic, Gemini and MCP, whose arguments arrive as JSON objects, as that object
//! serialized compactly). A call whose arguments are malformed JSON still parses, so the
//! gate can reject it with a message the model can act on, while it checks the other
//! calls of the same program.
//!
//! Results render from [`ToolOutput`](crate::ToolOutput): its text and image content, its
//! structured value and its error flag. Its `metadata` is host-only and never appears on
//! the wire. An output without content is sent as its structured value's JSON text if it
//! has one, else as `"Done."` (or a generic error sentence when it is an error), because
//! several providers reject empty tool results. Formats that carry only text (OpenAI)
//! replace each image with a short placeholder naming its MIME type.
//!
//! # Calls from the model's code
//!
//! Where the provider runs code the model wrote that calls the host's tools (Anthropic's
//! code execution tool, OpenAI Responses' programmatic tool calling), a call says who
//! made it ([`ToolCall::caller`](crate::ToolCall::caller): Anthropic's `tool_use.caller`,
//! OpenAI's `function_call.caller`), and its result goes back to it
//! ([`ToolReply::caller`](crate::output::ToolReply::caller), [`ToolReply::to`](crate::output::ToolReply::to)):
//! Anthropic by the `tool_use_id` as ever, OpenAI Responses naming the caller again in
//! the `function_call_output`. A request with
//! [`code_execution`](crate::request::Request::code_execution) lists each tool's `allowed_callers`
//! as its gate permits them.
//!
//! # Adding a consumer
//!
//! A folder beside the others, its `pub mod` line below, and one line in the list of
//! consumers (`with_consumers!` in `format.rs`). The list makes the [`Format`] variant,
//! its name, its place in [`Format::ALL`] and (in `list.rs`) the dispatch to the folder's
//! `tool`, and the compiler checks that the folder has `calls`, `results` and `tool` with
//! the signatures every consumer shares.

pub mod anthropic;
pub(crate) mod cache;
pub(crate) mod callers;
pub(crate) mod compose;
mod default_list;
pub(crate) mod error;
mod format;
pub mod gemini;
pub(crate) mod list;
pub(crate) mod listing;
pub mod mcp;
pub mod openai_chat;
pub mod openai_responses;
mod openai_strict;
pub mod prompt;
pub(crate) mod result_content;
mod schema_adapt;
pub(crate) mod strict_budget;
pub(crate) mod tool_changes;
pub(crate) mod tool_choice;
mod wire;

pub use default_list::tool_list;
pub use list::{Order, render_specs, render_specs_reporting, tool_value};
pub use strict_budget::{StrictDowngrade, StrictLimit};
pub use tool_changes::{Announced, ToolChanges};
pub use tool_choice::{ChoiceMode, FixedTools, ToolChoiceError};

pub use format::Format;

#[cfg(doc)]
use crate::call::ToolCall;
pub use error::ProviderError;

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

    #[test]
    fn names_are_the_module_names_and_only_prompt_is_text() {
        let names: Vec<&str> = Format::ALL.iter().map(|format| format.as_str()).collect();
        assert_eq!(
            names,
            [
                "openai_chat",
                "openai_responses",
                "anthropic",
                "gemini",
                "mcp",
                "prompt"
            ]
        );
        let text: Vec<Format> = Format::ALL
            .into_iter()
            .filter(|format| !format.is_json())
            .collect();
        assert_eq!(text, [Format::Prompt]);
    }
}
