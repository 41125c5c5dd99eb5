//! The rules of a tool's declaration, shared by `toolset` and `toolset-macros` so that a
//! compile error and a run-time rejection agree: the tool-name grammar every provider and
//! MCP client accepts, the edit distance between two names, and the one rule that turns it
//! into a "did you mean"; the grammar of an argument's MCP header name; the perfect hash `toolset!` generates to find a tool by name in
//! constant time; the risk tiers and their spellings; the one-name-per-set rule the
//! generated code asserts; and the rules of a tool's declaration
//! ([`declaration::check`]), one checker run by `#[tool]` at compile time and by a
//! toolbox's registration at run time.
//!
//! Not meant to be used directly; `toolset` re-exports [`Tier`] as `toolset::Tier`.
//!
//! Feature `serde` (off by default; `toolset` turns it on): `Serialize` and
//! `Deserialize` for [`Tier`], in its `snake_case` spelling.

#![no_std]

extern crate alloc;

pub mod declaration;
mod index;
mod same_name;
mod tier;

pub use index::{MAX_NAMES, NameIndex, bucket_count, slot_count};
pub use same_name::{ConstMessage, duplicate_name_message, earlier_same_name, same_name};
pub use tier::Tier;

use alloc::vec::Vec;

/// Whether `name` is an HTTP field name (RFC 9110 §5.6.2, a `token`): what MCP requires of
/// an argument's `x-mcp-header` (SEP-2243), which a client sends as `Mcp-Param-{name}`.
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// The longest tool name providers and MCP clients accept, in bytes.
pub const MAX_NAME_LEN: usize = 64;

/// Whether `name` matches `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, the tool-name grammar every
/// provider and MCP client accepts.
pub const fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_NAME_LEN {
        return false;
    }
    if !(bytes[0].is_ascii_alphabetic() || bytes[0] == b'_') {
        return false;
    }
    let mut i = 1;
    while i < bytes.len() {
        let byte = bytes[i];
        if !(byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// The name of the local tool search a request adds to a list that defers tools (and the
/// name OpenAI Responses sends a client-executed `tool_search_call` under).
pub const SEARCH_TOOL_NAME: &str = "tool_search";
/// The name an Anthropic list gives the provider's hosted BM25 tool search.
pub const ANTHROPIC_BM25_SEARCH_NAME: &str = "tool_search_tool_bm25";
/// The name an Anthropic list gives the provider's hosted regex tool search.
pub const ANTHROPIC_REGEX_SEARCH_NAME: &str = "tool_search_tool_regex";

/// The names a list may declare for a tool search, which no tool may take: a tool of one
/// of these names would be declared twice in a list, and the gate could not tell its calls
/// from the search's. Each with what it is reserved for, as the error says it.
pub const RESERVED_NAMES: &[(&str, &str)] = &[
    (
        SEARCH_TOOL_NAME,
        "the tool search toolset adds to a list with deferred tools",
    ),
    (
        ANTHROPIC_BM25_SEARCH_NAME,
        "Anthropic's hosted BM25 tool search, which a list for Anthropic declares by this name",
    ),
    (
        ANTHROPIC_REGEX_SEARCH_NAME,
        "Anthropic's hosted regex tool search, which a list for Anthropic declares by this name",
    ),
];

/// What `name` is reserved for, when no tool may take it (see [`RESERVED_NAMES`]).
pub fn reserved_for(name: &str) -> Option<&'static str> {
    RESERVED_NAMES
        .iter()
        .find(|(reserved, _)| *reserved == name)
        .map(|(_, owner)| *owner)
}

/// The error for a tool named `name`, reserved for `owner` (see [`reserved_for`]): what
/// it is reserved for and what to write instead. The compiler and the toolbox's
/// registration say the same.
pub fn reserved_name_message(name: &str, owner: &str) -> alloc::string::String {
    alloc::format!(
        "`{name}` is reserved for {owner}; name this tool something else, e.g. `search_issues`"
    )
}

/// The optimal string alignment distance between `a` and `b`, in characters: the fewest
/// insertions, deletions, substitutions and swaps of two neighbours (`titel` is one swap
/// from `title`) that turn one into the other, no substring edited twice.
///
/// Costs `a.len() * b.len()` steps: callers bound the lengths ([`closest`] does).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    osa_distance(&a, &b)
}

fn osa_distance(a: &[char], b: &[char]) -> usize {
    // Three rows of the table: distances from the first i-2, i-1 and i chars of `a` to
    // every prefix of `b`. The swap case reads two rows back.
    let mut before: Vec<usize> = alloc::vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = alloc::vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        // Rotate: the row just filled becomes `previous`, its predecessor `before`.
        core::mem::swap(&mut before, &mut previous);
        core::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The candidate `name` is probably a misspelling of, if any: the nearest one (the first of
/// equals, in the candidates' order) within the did-you-mean rule.
///
/// The rule, compared ignoring ASCII case and with `-` read as `_`: at most one edit per
/// three characters of the candidate (one edit for names of up to five), or `name` is the
/// start of the candidate and at least three characters long (`desc` → `description`).
///
/// Bounded: a name or candidate longer than [`MAX_NAME_LEN`] bytes is never a
/// suggestion, and no distance is computed for it, so a model sending a huge name costs
/// nothing here.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if name.len() > MAX_NAME_LEN {
        return None;
    }
    let name = folded(name);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate.len() > MAX_NAME_LEN {
            continue;
        }
        let folded_candidate = folded(candidate);
        let allowed = folded_candidate.len().max(3) / 3;
        let distance = if name.len() >= 3 && folded_candidate.starts_with(name.as_slice()) {
            // The prefix rule: a shortened name is as near as its missing tail.
            folded_candidate.len() - name.len()
        } else if name.len().abs_diff(folded_candidate.len()) > allowed {
            // The distance is at least the difference in length: out of reach.
            continue;
        } else {
            let distance = osa_distance(&name, &folded_candidate);
            if distance > allowed {
                continue;
            }
            distance
        };
        if best.is_none_or(|(nearest, _)| distance < nearest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// `name` as [`closest`] compares it: ASCII lowercase, `-` as `_`.
fn folded(name: &str) -> Vec<char> {
    name.chars()
        .map(|c| match c {
            '-' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_accepts_what_providers_accept() {
        assert!(is_valid_tool_name("search"));
        assert!(is_valid_tool_name("_private"));
        assert!(is_valid_tool_name("create-item_2"));
        assert!(is_valid_tool_name(&"a".repeat(64)));
    }

    #[test]
    fn the_grammar_rejects_what_some_provider_refuses() {
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("2fa"));
        assert!(!is_valid_tool_name("-dash"));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("dotted.name"));
        assert!(!is_valid_tool_name("émoji"));
        assert!(!is_valid_tool_name(&"a".repeat(65)));
    }

    #[test]
    fn every_search_name_is_reserved_and_nothing_else() {
        for name in [
            SEARCH_TOOL_NAME,
            ANTHROPIC_BM25_SEARCH_NAME,
            ANTHROPIC_REGEX_SEARCH_NAME,
        ] {
            assert!(reserved_for(name).is_some(), "{name}");
        }
        assert_eq!(reserved_for("search"), None);
        assert_eq!(reserved_for("Tool_Search"), None);
    }

    #[test]
    fn edit_distance_counts_each_kind_of_edit_once() {
        assert_eq!(edit_distance("title", "title"), 0);
        assert_eq!(edit_distance("titl", "title"), 1); // insertion
        assert_eq!(edit_distance("tittle", "title"), 1); // deletion
        assert_eq!(edit_distance("tiple", "title"), 1); // substitution
        assert_eq!(edit_distance("titel", "title"), 1); // swap of neighbours
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn edit_distance_is_optimal_string_alignment_not_full_damerau() {
        // OSA does not edit a swapped pair again: `ca` → `abc` is 3, not Damerau's 2.
        assert_eq!(edit_distance("ca", "abc"), 3);
    }

    #[test]
    fn edit_distance_counts_characters_not_bytes() {
        assert_eq!(edit_distance("né", "ne"), 1);
    }

    #[test]
    fn closest_suggests_a_near_misspelling() {
        let keys = ["tier", "description", "name", "title"];
        assert_eq!(closest("descripton", keys), Some("description"));
        assert_eq!(closest("titel", keys), Some("title"));
        assert_eq!(closest("Tier", keys), Some("tier"));
        assert_eq!(
            closest("read-only", ["read_only", "reversible"]),
            Some("read_only")
        );
    }

    #[test]
    fn closest_completes_a_shortened_name() {
        assert_eq!(
            closest("desc", ["tier", "description"]),
            Some("description")
        );
        // Two letters are too few to guess from.
        assert_eq!(closest("de", ["tier", "description"]), None);
    }

    #[test]
    fn closest_suggests_nothing_for_an_unrelated_name() {
        assert_eq!(closest("frobnicate", ["search", "archive"]), None);
        assert_eq!(closest("zz", ["tier", "name"]), None);
    }

    #[test]
    fn closest_prefers_the_nearest_then_the_first() {
        assert_eq!(closest("serch", ["search", "serch_all"]), Some("search"));
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
    }

    #[test]
    fn closest_ignores_a_name_beyond_the_grammar_without_measuring_it() {
        let huge = "search".repeat(1000);
        assert_eq!(closest(&huge, ["search"]), None);
        let just_too_long = "a".repeat(MAX_NAME_LEN + 1);
        assert_eq!(closest(&just_too_long, [&*"a".repeat(MAX_NAME_LEN)]), None);
    }
}
