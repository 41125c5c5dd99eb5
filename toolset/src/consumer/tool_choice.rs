//! The provider's tool-choice value that says exactly what a request's gate permits:
//! OpenAI's `tool_choice` (`allowed_tools`, Chat Completions and Responses) and Gemini's
//! `toolConfig` (`functionCallingConfig` with `allowedFunctionNames`).
//!
//! The request decides what is permitted, once; this file reads that decision as the
//! request's [`Listing`] and writes it in each provider's shape, from the [`ChoiceMode`]
//! the host asked for ([`Request::tool_choice`](crate::request::Request::tool_choice)), and
//! renders the fixed list that goes with it ([`Request::fixed_tools`](crate::request::Request::fixed_tools)).
//!
//! | format | [`ChoiceMode::Auto`] | [`ChoiceMode::Required`] | [`ChoiceMode::Unrestricted`] | nothing permitted |
//! |---|---|---|---|---|
//! | OpenAI Chat | `{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":…}},…]}}` | the same, `"mode":"required"` | `"auto"` | `"none"` |
//! | OpenAI Responses | `{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":…},…]}` | the same, `"mode":"required"` | `"auto"` | `"none"` |
//! | Gemini | `{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":[…]}}` | the same, `"mode":"ANY"` | `{"functionCallingConfig":{"mode":"AUTO"}}` | `{"functionCallingConfig":{"mode":"NONE"}}` |
//!
//! In OpenAI Responses a toolbox namespace's tools that the list has inside the namespace's
//! entry are named inside it too: `{"type":"namespace","name":<label>,"tools":[{"type":
//! "function","name":<tool>},…]}`, one entry a namespace holding exactly its permitted
//! tools (by their names inside it), as a stripped-down definition like the functions'.
//!
//! Anthropic, MCP and prompt text have no choice that names what may be called
//! ([`ToolChoiceError::Unsupported`]). What a request with a fixed list emits, per
//! provider:
//!
//! | format | the list | what says what is permitted now |
//! |---|---|---|
//! | OpenAI Chat, OpenAI Responses | [`FixedTools::tools`]: every tool the conversation may permit | [`FixedTools::tool_choice`], `allowed_tools` |
//! | Gemini | [`FixedTools::tools`] | [`FixedTools::tool_choice`], `toolConfig` with `allowedFunctionNames` |
//! | Anthropic | [`ToolChanges::tools`](super::ToolChanges::tools): the same, those waiting for an activation `defer_loading` | [`ToolChanges::blocks`](super::ToolChanges::blocks), `tool_addition` / `tool_removal` in the next user message |
//! | MCP, prompt text | none: send the composed list | the composed list itself |

use super::Format;
use super::compose::compose;
use super::listing::{Listed, Listing};
use super::openai_responses::namespace::inner_name;
use serde_json::{Value, json};
use std::fmt;

/// What the host asks of the model's tool calling, rendered by
/// [`Request::tool_choice`](crate::request::Request::tool_choice) in the provider's words. Set with
/// [`Request::choice_mode`](crate::request::Request::choice_mode); the default is
/// [`Auto`](Self::Auto).
///
/// Whatever the mode, what the gate permits is the same: the mode only says whether the
/// provider is told, and whether the model must call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ChoiceMode {
    /// The model may call a tool the request permits, or answer in text; the choice names
    /// exactly the permitted tools. OpenAI: `allowed_tools` with `"mode": "auto"`. Gemini:
    /// mode `VALIDATED` with `allowedFunctionNames` (Gemini takes the names only with
    /// `ANY` or `VALIDATED`; `VALIDATED` is the one that still lets the model answer in
    /// text).
    #[default]
    Auto,
    /// The model must call one or more of the tools the request permits; the choice names
    /// exactly them. OpenAI: `allowed_tools` with `"mode": "required"`. Gemini: mode `ANY`
    /// with `allowedFunctionNames`.
    Required,
    /// Names nothing: OpenAI's `"auto"`, Gemini's mode `AUTO` (which takes no
    /// `allowedFunctionNames`). The model may call any tool the list declares, the
    /// history's included, and the gate refuses what it does not permit, as with no choice
    /// sent at all. For a composed list ([`Request::tool_list`](crate::request::Request::tool_list))
    /// only: a fixed list declares tools the gate refuses, so it needs a choice that names
    /// the permitted ones ([`ToolChoiceError::FixedNeedsNames`]).
    Unrestricted,
}

/// Why a request has no tool choice, or no fixed list, for its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoiceError {
    /// The format has no tool choice naming the tools that may be called (Anthropic, MCP,
    /// prompt text, or a request given no format). Send the composed list
    /// ([`Request::tool_list`](crate::request::Request::tool_list)) without a choice: it offers only
    /// what the gate permits, but for the history's declarations, which the gate refuses.
    Unsupported(Format),
    /// A fixed list was asked with [`ChoiceMode::Unrestricted`]: it would show the model
    /// every tool of the conversation as callable. Use [`ChoiceMode::Auto`] or
    /// [`ChoiceMode::Required`], or the composed list.
    FixedNeedsNames(Format),
    /// Mid-conversation tool changes were asked of a format that has none: only Anthropic
    /// has them ([`Request::tool_changes`](crate::request::Request::tool_changes)). OpenAI and
    /// Gemini keep a list fixed with a tool choice
    /// ([`Request::fixed_tools`](crate::request::Request::fixed_tools)).
    NoToolChanges(Format),
    /// Mid-conversation tool changes with the provider's hosted tool search: the search
    /// loads what it finds itself, so the conversation's changes could not be told apart
    /// from its. Use [`ToolSearch::Local`](crate::search::ToolSearch::Local) with a fixed list.
    HostedSearch(Format),
}

impl fmt::Display for ToolChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoiceError::Unsupported(format) => write!(
                f,
                "{format} has no tool choice that names the tools the model may call: send \
                 the request's composed tool list (`Request::tool_list`) without one; a \
                 tool choice and a fixed list are for openai_chat, openai_responses and \
                 gemini; anthropic keeps a list fixed with tool changes (`Request::tool_changes`)"
            ),
            ToolChoiceError::NoToolChanges(format) => write!(
                f,
                "{format} has no mid-conversation tool changes (only anthropic has): keep its \
                 list fixed with `Request::fixed_tools`, whose tool choice names what the gate \
                 permits, or send the composed list (`Request::tool_list`)"
            ),
            ToolChoiceError::HostedSearch(format) => write!(
                f,
                "{format}'s hosted tool search loads the tools it finds itself, so tool \
                 changes cannot say what the model may call: use `ToolSearch::Local` with \
                 `Request::tool_changes`, or the composed list (`Request::tool_list`)"
            ),
            ToolChoiceError::FixedNeedsNames(format) => write!(
                f,
                "a fixed tool list for {format} declares tools the gate refuses, so its tool \
                 choice must name the permitted ones: use ChoiceMode::Auto or \
                 ChoiceMode::Required, or send the composed list (`Request::tool_list`)"
            ),
        }
    }
}

impl std::error::Error for ToolChoiceError {}

/// A fixed tool list and the tool choice that goes with it: what
/// [`Request::fixed_tools`](crate::request::Request::fixed_tools) gives. Send both, always
/// together: the list declares every tool the conversation may come to permit, and only
/// the choice tells the provider which of them the gate permits now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FixedTools {
    /// The list, as [`Request::tool_list`](crate::request::Request::tool_list) renders one: the
    /// value of the body's `tools` (OpenAI) or of a `Tool`'s `functionDeclarations`
    /// (Gemini). The same bytes for every request of a conversation, but for what the
    /// request injects beyond the policy and the history's names outside the list, which
    /// are appended after it.
    pub tools: String,
    /// The value of the body's `tool_choice` (OpenAI) or `toolConfig` (Gemini), naming
    /// exactly what the gate permits (see [`ChoiceMode`]).
    pub tool_choice: Value,
    /// The tools the list renders without `strict` because the strict tools listed before
    /// them reached the provider's per-request limits, in list order (see
    /// [`Request::strict_downgrades`](crate::request::Request::strict_downgrades)); empty in the
    /// common case.
    pub strict_downgrades: Vec<super::StrictDowngrade>,
}

/// One entry a tool choice may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Allowed<'a> {
    /// A function tool, by its name.
    Function(&'a str),
    /// A function tool the list has inside its namespace's entry (OpenAI Responses), by
    /// the namespace's label and the tool's local name (`label_tool`).
    Namespaced { namespace: &'a str, local: &'a str },
    /// The list's search entry: OpenAI Responses names its `tool_search` (client-executed
    /// or hosted) by its type; elsewhere the local search is the function `tool_search`.
    Search,
}

impl Allowed<'_> {
    /// The function name the entry goes by.
    pub(crate) fn name(&self) -> &str {
        match self {
            Allowed::Function(name) | Allowed::Namespaced { local: name, .. } => name,
            Allowed::Search => toolset_rules::SEARCH_TOOL_NAME,
        }
    }
}

/// Whether `format` has a tool choice naming what may be called.
pub(crate) fn has_tool_choice(format: Format) -> bool {
    matches!(
        format,
        Format::OpenAiChat | Format::OpenAiResponses | Format::Gemini
    )
}

/// The tool choice for `format` in `mode`, naming `allowed` (in that order).
pub(crate) fn tool_choice(
    format: Format,
    mode: ChoiceMode,
    allowed: &[Allowed<'_>],
) -> Result<Value, ToolChoiceError> {
    if !has_tool_choice(format) {
        return Err(ToolChoiceError::Unsupported(format));
    }
    // Nothing permitted: no call at all, whatever the mode (an empty list of names could
    // read as "no restriction").
    if allowed.is_empty() {
        return Ok(match format {
            Format::Gemini => json!({"functionCallingConfig": {"mode": "NONE"}}),
            _ => json!("none"),
        });
    }
    let openai_mode = match mode {
        ChoiceMode::Auto => "auto",
        ChoiceMode::Required => "required",
        ChoiceMode::Unrestricted => {
            return Ok(match format {
                Format::Gemini => json!({"functionCallingConfig": {"mode": "AUTO"}}),
                _ => json!("auto"),
            });
        }
    };
    Ok(match format {
        Format::OpenAiChat => {
            let tools: Vec<Value> = allowed
                .iter()
                .map(|entry| json!({"type": "function", "function": {"name": entry.name()}}))
                .collect();
            json!({"type": "allowed_tools", "allowed_tools": {"mode": openai_mode, "tools": tools}})
        }
        Format::OpenAiResponses => {
            let mut tools: Vec<Value> = Vec::with_capacity(allowed.len());
            // Each namespace named once, where its first permitted tool is, with the
            // permitted tools inside it (by their names there).
            let mut namespaces: Vec<(&str, usize)> = Vec::new();
            for entry in allowed {
                match entry {
                    Allowed::Function(name) => {
                        tools.push(json!({"type": "function", "name": name}))
                    }
                    Allowed::Search => tools.push(json!({"type": "tool_search"})),
                    Allowed::Namespaced { namespace, local } => {
                        let function =
                            json!({"type": "function", "name": inner_name(namespace, local)});
                        let at = namespaces.iter().find(|(label, _)| label == namespace);
                        match at.and_then(|&(_, at)| tools.get_mut(at)) {
                            Some(entry) => {
                                if let Some(list) =
                                    entry.get_mut("tools").and_then(Value::as_array_mut)
                                {
                                    list.push(function);
                                }
                            }
                            None => {
                                namespaces.push((namespace, tools.len()));
                                tools.push(json!({"type": "namespace", "name": namespace,
                                                  "tools": [function]}));
                            }
                        }
                    }
                }
            }
            json!({"type": "allowed_tools", "mode": openai_mode, "tools": tools})
        }
        _ => {
            let names: Vec<&str> = allowed.iter().map(Allowed::name).collect();
            let gemini_mode = match mode {
                ChoiceMode::Required => "ANY",
                _ => "VALIDATED",
            };
            json!({"functionCallingConfig": {"mode": gemini_mode, "allowedFunctionNames": names}})
        }
    })
}

/// What a tool choice names for `listing` in `format`: the tools the gate permits, in
/// list order, and the search entry where the model calls it (the local search) or the
/// provider runs it (OpenAI Responses' hosted search).
pub(crate) fn allowed<'a>(listing: &Listing<'a>, format: Format) -> Vec<Allowed<'a>> {
    let namespaces = listing.namespaces(format);
    listing
        .entries
        .iter()
        .enumerate()
        .filter_map(|(at, entry)| match entry {
            Listed::Tool(tool) if tool.permitted => {
                let name = tool.spec.name();
                Some(match namespaces.at(at) {
                    // Named as the list names it: inside its namespace's entry (a runtime
                    // tool of a namespace).
                    Some(namespace) => Allowed::Namespaced {
                        namespace: namespace.label(),
                        local: name,
                    },
                    None => Allowed::Function(name),
                })
            }
            Listed::Search { allowed: true, .. } => Some(Allowed::Search),
            Listed::Tool(_) | Listed::Search { .. } | Listed::StandIn(_) => None,
        })
        .collect()
}

/// The tool choice for `listing` (`Request::tool_choice`): what the gate permits, in
/// `mode`.
pub(crate) fn choice(
    listing: &Listing<'_>,
    format: Format,
    mode: ChoiceMode,
) -> Result<Value, ToolChoiceError> {
    tool_choice(format, mode, &allowed(listing, format))
}

/// The fixed list and its tool choice (`Request::fixed_tools`): `listing` is the fixed
/// list's, built only where a choice can restrict it.
pub(crate) fn fixed_tools<'a>(
    format: Format,
    mode: ChoiceMode,
    listing: impl FnOnce() -> Listing<'a>,
) -> Result<FixedTools, ToolChoiceError> {
    if !has_tool_choice(format) {
        return Err(ToolChoiceError::Unsupported(format));
    }
    if mode == ChoiceMode::Unrestricted {
        return Err(ToolChoiceError::FixedNeedsNames(format));
    }
    let listing = listing();
    let tool_choice = choice(&listing, format, mode)?;
    let (tools, strict_downgrades) = compose(&listing, format);
    Ok(FixedTools {
        tools,
        tool_choice,
        strict_downgrades,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: [Allowed<'static>; 2] = [Allowed::Function("now"), Allowed::Search];

    /// Each cell of the module's table.
    #[test]
    fn every_format_and_mode_renders_the_documented_value() {
        let render = |format, mode, allowed: &[Allowed<'_>]| {
            tool_choice(format, mode, allowed).expect("a format with a choice")
        };
        assert_eq!(
            render(Format::OpenAiChat, ChoiceMode::Auto, &ALLOWED),
            json!({"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [
                {"type": "function", "function": {"name": "now"}},
                {"type": "function", "function": {"name": "tool_search"}}]}})
        );
        assert_eq!(
            render(Format::OpenAiResponses, ChoiceMode::Required, &ALLOWED),
            json!({"type": "allowed_tools", "mode": "required", "tools": [
                {"type": "function", "name": "now"}, {"type": "tool_search"}]})
        );
        assert_eq!(
            render(Format::Gemini, ChoiceMode::Auto, &ALLOWED),
            json!({"functionCallingConfig": {"mode": "VALIDATED",
                "allowedFunctionNames": ["now", "tool_search"]}})
        );
        assert_eq!(
            render(Format::Gemini, ChoiceMode::Required, &ALLOWED),
            json!({"functionCallingConfig": {"mode": "ANY",
                "allowedFunctionNames": ["now", "tool_search"]}})
        );
        for format in [Format::OpenAiChat, Format::OpenAiResponses] {
            assert_eq!(
                render(format, ChoiceMode::Unrestricted, &ALLOWED),
                json!("auto")
            );
            for mode in [
                ChoiceMode::Auto,
                ChoiceMode::Required,
                ChoiceMode::Unrestricted,
            ] {
                assert_eq!(render(format, mode, &[]), json!("none"));
            }
        }
        assert_eq!(
            render(Format::Gemini, ChoiceMode::Unrestricted, &ALLOWED),
            json!({"functionCallingConfig": {"mode": "AUTO"}})
        );
        assert_eq!(
            render(Format::Gemini, ChoiceMode::Required, &[]),
            json!({"functionCallingConfig": {"mode": "NONE"}})
        );
    }

    #[test]
    fn a_namespace_is_named_once_with_its_permitted_tools_inside() {
        let allowed = [
            Allowed::Namespaced {
                namespace: "fix",
                local: "fix_echo",
            },
            Allowed::Function("now"),
            Allowed::Namespaced {
                namespace: "fix",
                local: "fix_fail",
            },
            Allowed::Search,
        ];
        assert_eq!(
            tool_choice(Format::OpenAiResponses, ChoiceMode::Auto, &allowed),
            Ok(json!({"type": "allowed_tools", "mode": "auto", "tools": [
                {"type": "namespace", "name": "fix", "tools": [
                    {"type": "function", "name": "echo"}, {"type": "function", "name": "fail"}]},
                {"type": "function", "name": "now"},
                {"type": "tool_search"}]}))
        );
        // Formats without namespaces name the local names.
        assert_eq!(
            tool_choice(Format::Gemini, ChoiceMode::Auto, &allowed),
            Ok(json!({"functionCallingConfig": {"mode": "VALIDATED",
                "allowedFunctionNames": ["fix_echo", "now", "fix_fail", "tool_search"]}}))
        );
    }

    #[test]
    fn formats_without_a_choice_say_what_to_send_instead() {
        for format in [Format::Anthropic, Format::Mcp, Format::Prompt] {
            let error = tool_choice(format, ChoiceMode::Auto, &ALLOWED)
                .expect_err("no choice names what may be called");
            assert_eq!(error, ToolChoiceError::Unsupported(format));
            assert!(error.to_string().contains("Request::tool_list"), "{error}");
        }
    }
}
