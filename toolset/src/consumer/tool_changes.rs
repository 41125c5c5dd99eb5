//! Anthropic's mid-conversation tool changes: a tool list whose bytes never change during a
//! conversation, and `tool_addition` / `tool_removal` content blocks (beta
//! `mid-conversation-tool-changes-2026-07-01`) that bring what the model may call to
//! exactly what the request's gate permits.
//!
//! The request decides what is listed and permitted, once; this file reads that decision
//! as the request's [`Listing`]
//! ([`Request::tool_changes`](crate::request::Request::tool_changes)), keeps what the
//! conversation has announced so far ([`Announced`]) and writes the list and the blocks:
//!
//! ```json
//! {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "convert"}}
//! {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "archive"}}
//! ```
//!
//! A tool the list declares with `defer_loading: true` is not offered until a
//! `tool_addition` names it; any other tool the list declares is offered from the first
//! request until a `tool_removal` names it. The blocks are what changed since the
//! previous request, so a conversation sends each change once.

use super::Format;
use super::compose::compose;
use super::listing::{Listed, ListedTool, Listing};
use super::tool_choice::{Allowed, ToolChoiceError, allowed};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What an Anthropic conversation has made available to the model so far: the names its
/// tool list offers from the start, changed by every `tool_addition` and `tool_removal`
/// block it has sent. Keep it with the conversation (it is serializable) and hand it to
/// [`Request::tool_changes`](crate::request::Request::tool_changes) for each request; a new
/// conversation starts from [`Announced::default`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announced {
    /// Whether the conversation's first list was rendered: until then the starting
    /// availability is the list's own.
    started: bool,
    /// The names the model may call now, in the order they became available.
    names: Vec<String>,
}

impl Announced {
    /// The names the conversation has made available, in the order they became so.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The blocks that take the conversation from what it announced to `permitted`, and
    /// records `permitted` as announced. `listed` is what the list offers without a block
    /// (its entries not marked `defer_loading`), the starting point of a new conversation.
    /// Removals first, then additions, each in the order given: the same inputs give the
    /// same blocks.
    pub(crate) fn advance(&mut self, listed: &[&str], permitted: &[&str]) -> Vec<Value> {
        if !self.started {
            self.started = true;
            self.names = listed.iter().map(|name| (*name).to_owned()).collect();
        }
        let removed = self
            .names
            .iter()
            .filter(|name| !permitted.contains(&name.as_str()))
            .map(|name| block("tool_removal", name));
        let added = permitted
            .iter()
            .filter(|name| !self.names.iter().any(|known| known == *name))
            .map(|name| block("tool_addition", name));
        let blocks: Vec<Value> = removed.chain(added).collect();
        self.names.retain(|name| permitted.contains(&name.as_str()));
        for name in permitted {
            if !self.names.iter().any(|known| known == name) {
                self.names.push((*name).to_owned());
            }
        }
        blocks
    }
}

/// One change block naming the tool `name`.
fn block(kind: &str, name: &str) -> Value {
    json!({"type": kind, "tool": {"type": "tool_reference", "name": name}})
}

/// Anthropic's fixed tool list and the changes to send with a request: what
/// [`Request::tool_changes`](crate::request::Request::tool_changes) gives.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolChanges {
    /// The body's `tools`: every tool the conversation may come to permit, those that
    /// need an activation marked `defer_loading: true`. The same bytes for every request
    /// of a conversation, but for what a request injects beyond the policy and the
    /// history's names outside the list, which are appended after it.
    pub tools: String,
    /// The `tool_removal` and `tool_addition` blocks for this request: put them in the
    /// next user message, after its `tool_result` blocks (or in a `role: "system"`
    /// message), with the beta header `anthropic-beta:
    /// mid-conversation-tool-changes-2026-07-01`. Empty when nothing changed.
    pub blocks: Vec<Value>,
}

/// Anthropic's fixed list and the blocks that bring what the model may call to what the
/// gate permits (`Request::tool_changes`): `listing` is the fixed list's, built only for
/// Anthropic with a search the host answers (`hosted_search` false).
pub(crate) fn tool_changes<'a>(
    format: Format,
    hosted_search: bool,
    announced: &mut Announced,
    listing: impl FnOnce() -> Listing<'a>,
) -> Result<ToolChanges, ToolChoiceError> {
    if format != Format::Anthropic {
        return Err(ToolChoiceError::NoToolChanges(format));
    }
    if hosted_search {
        return Err(ToolChoiceError::HostedSearch(format));
    }
    let listing = listing();
    // What the list offers with no block: its entries not marked `defer_loading`.
    let listed: Vec<&str> = listing
        .entries
        .iter()
        .zip(listing.names())
        .filter(|(entry, _)| {
            !matches!(
                entry,
                Listed::Tool(ListedTool {
                    defer_loading: true,
                    ..
                })
            )
        })
        .map(|(_, name)| name)
        .collect();
    let allowed = allowed(&listing, format);
    let permitted: Vec<&str> = allowed.iter().map(Allowed::name).collect();
    let blocks = announced.advance(&listed, &permitted);
    Ok(ToolChanges {
        tools: compose(&listing, format).0,
        blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_conversation_starts_from_the_list_and_sends_each_change_once() {
        let mut announced = Announced::default();
        // The list offers `now` and `tool_search`; `convert` is deferred and not yet found.
        let first = announced.advance(&["now", "tool_search"], &["now", "tool_search"]);
        assert!(first.is_empty());
        // A search found `convert`.
        let second = announced.advance(&["now", "tool_search"], &["now", "tool_search", "convert"]);
        assert_eq!(
            second,
            [
                json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": "convert"}})
            ]
        );
        // Nothing new: nothing sent again.
        assert!(
            announced
                .advance(&["now", "tool_search"], &["now", "tool_search", "convert"])
                .is_empty()
        );
        // The host's policy now denies `now`.
        let third = announced.advance(&["now", "tool_search"], &["tool_search", "convert"]);
        assert_eq!(
            third,
            [json!({"type": "tool_removal", "tool": {"type": "tool_reference", "name": "now"}})]
        );
        assert_eq!(announced.names(), ["tool_search", "convert"]);
    }

    #[test]
    fn a_first_request_that_permits_other_than_the_list_offers_says_so() {
        let mut announced = Announced::default();
        let blocks = announced.advance(&["old_name", "now"], &["now", "found"]);
        assert_eq!(
            blocks,
            [
                json!({"type": "tool_removal", "tool": {"type": "tool_reference", "name": "old_name"}}),
                json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": "found"}}),
            ]
        );
        let text = serde_json::to_string(&announced).expect("serializable");
        let back: Announced = serde_json::from_str(&text).expect("round-trips");
        assert_eq!(back, announced);
    }
}
