//! A request's tool list, composed from its [`Listing`]: the cached per-tool fragments
//! concatenated, held to the provider's per-request strict limits, with what the request
//! adds to a fragment (`defer_loading`, `allowed_callers`, a namespace's entry) and the
//! stand-ins of the history's unknown names.

use super::Format;
use super::StrictDowngrade;
use super::callers::allowed_callers;
use super::listing::{Listed, Listing};
use super::openai_responses::namespace;
use super::strict_budget::spend;
use crate::messages;
use serde_json::json;

/// What a deferred tool's fragment gains in a JSON list: a native search loads it.
const DEFER_LOADING: &str = ",\"defer_loading\":true";

/// The list `listing` gives in `format`, and the tools it renders without `strict`
/// because the strict tools listed before them spent the provider's per-request limits
/// (`Request::tool_list`, `Request::strict_downgrades`).
pub(crate) fn compose(listing: &Listing<'_>, format: Format) -> (String, Vec<StrictDowngrade>) {
    let json = format.is_json();
    // Stand-ins are the only pieces rendered per request (a history name the set does
    // not have); everything else is a cached fragment, borrowed.
    let stand_ins: Vec<String> = listing
        .entries
        .iter()
        .filter_map(|entry| match entry {
            Listed::StandIn(name) => Some(stand_in(name, format)),
            _ => None,
        })
        .collect();
    let namespaces = listing.namespaces(format);
    let label = |at: usize| namespaces.at(at).map(|namespace| namespace.label());
    // The provider's per-request strict limits, spent in list order: a sum of cached
    // costs, no schema read.
    let (keeps, downgrades) = match listing.strict {
        true => spend(
            format,
            listing.entries.iter().filter_map(|entry| match entry {
                Listed::Tool(tool) => Some((tool.spec.name(), tool.fragment.strict())),
                Listed::Search { fragment, spec, .. } => Some((spec.name(), fragment.strict())),
                Listed::StandIn(_) => None,
            }),
        ),
        false => (Vec::new(), Vec::new()),
    };
    let mut keeps = keeps.into_iter();
    let mut stand_ins = stand_ins.iter();
    // Each entry as its parts: its body and the members appended to it (a deferred
    // tool a native search loads is its fragment without the closing brace, then
    // `defer_loading`; with code execution, a tool's `allowed_callers`, what the gate
    // permits from code, likewise), between what opens and closes a namespace's entry
    // (the first tool of a namespace's run opens it, its last closes it; the separator
    // inside is the list's, `,`). A tool's fragment is cached per format; what the
    // request adds is not.
    let callers = |from_code: bool| {
        allowed_callers(format, from_code).filter(|_| listing.code_execution && json)
    };
    fn patched<'a>(fragment: &'a str, defer: bool, callers: Option<&'a str>) -> [&'a str; 5] {
        match fragment.strip_suffix('}') {
            Some(open) if defer || callers.is_some() => [
                open,
                if defer { DEFER_LOADING } else { "" },
                if callers.is_some() { "," } else { "" },
                callers.unwrap_or(""),
                "}",
            ],
            _ => [fragment, "", "", "", ""],
        }
    }
    let separator = if json { "," } else { "\n\n" };
    let (open, close) = if json { ("[", "]") } else { ("", "") };
    // Sized from the cached fragments' lengths and what the request adds to them: exact
    // in the common case (one allocation, written in one pass); a namespace's edges or a
    // fragment rendered without `strict` may grow it once.
    let estimate = open.len()
        + close.len()
        + separator.len() * listing.entries.len().saturating_sub(1)
        + stand_ins.as_slice().iter().map(String::len).sum::<usize>()
        + listing
            .entries
            .iter()
            .map(|entry| match entry {
                Listed::StandIn(_) => 0,
                Listed::Search { fragment, spec, .. } => {
                    fragment.as_listed(spec, format, true).len()
                }
                Listed::Tool(tool) => {
                    tool.fragment.as_listed(tool.spec, format, true).len()
                        + if tool.defer_loading && json {
                            DEFER_LOADING.len()
                        } else {
                            0
                        }
                        + callers(tool.from_code).map_or(0, |callers| 1 + callers.len())
                }
            })
            .sum::<usize>();
    let mut list = String::with_capacity(estimate);
    list.push_str(open);
    for (at, entry) in listing.entries.iter().enumerate() {
        let [body, defer, comma, allowed, end] = match entry {
            Listed::StandIn(_) => [stand_ins.next().map_or("", String::as_str), "", "", "", ""],
            Listed::Search { fragment, spec, .. } => {
                let keep = keeps.next().unwrap_or(false);
                patched(fragment.as_listed(spec, format, keep), false, None)
            }
            Listed::Tool(tool) => {
                let keep = keeps.next().unwrap_or(false);
                let text = match namespaces.at(at) {
                    Some(nested) => nested.inner(keep),
                    None => tool.fragment.as_listed(tool.spec, format, keep),
                };
                patched(text, tool.defer_loading && json, callers(tool.from_code))
            }
        };
        let (opening, closing) = match (namespaces.at(at), label(at)) {
            (Some(namespace), Some(this)) => (
                match at.checked_sub(1).and_then(label) {
                    Some(before) if before == this => "",
                    _ => namespace.open(),
                },
                match label(at + 1) {
                    Some(after) if after == this => "",
                    _ => namespace::CLOSE,
                },
            ),
            _ => ("", ""),
        };
        if at > 0 {
            list.push_str(separator);
        }
        // Most of an entry's seven parts are empty (only a namespace's edges, a deferred
        // tool or code execution fill them): skipped, not copied as nothing.
        for part in [opening, body, defer, comma, allowed, end, closing] {
            if !part.is_empty() {
                list.push_str(part);
            }
        }
    }
    list.push_str(close);
    (list, downgrades)
}

/// A minimal declaration for a history name no tool the model may know has.
fn stand_in(name: &str, format: Format) -> String {
    const DESCRIPTION: &str = messages::STAND_IN;
    let empty = json!({"type": "object", "properties": {}});
    let tool = match format {
        Format::OpenAiChat => json!({"type": "function", "function": {
            "name": name, "description": DESCRIPTION, "parameters": empty, "strict": false}}),
        Format::OpenAiResponses => json!({"type": "function", "name": name,
            "description": DESCRIPTION, "parameters": empty, "strict": false}),
        Format::Anthropic => {
            json!({"name": name, "description": DESCRIPTION, "input_schema": empty})
        }
        Format::Gemini => json!({"name": name, "description": DESCRIPTION}),
        Format::Mcp => json!({"name": name, "description": DESCRIPTION, "inputSchema": empty}),
        _ => return format!("## {name}\n{DESCRIPTION}"),
    };
    tool.to_string()
}
