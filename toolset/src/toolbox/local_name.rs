//! The local name of a namespace's tool: `label_tool`, or, where that is no valid tool
//! name (longer than [`MAX_NAME_LEN`], or with a character outside the grammar, such as
//! the `.` MCP allows), a shortened name that is valid, deterministic and unique.
//!
//! A proxied server's tool names are its own: MCP allows 128 characters and `.`, while
//! every provider takes at most 64 of `[A-Za-z0-9_-]`. Refusing such a tool would lose it;
//! truncating alone would let two tools share a name. So the name keeps the label and as
//! much of the remote name as fits (each character outside the grammar written as `_`),
//! and ends with `_` and the first 10 hex digits of the SHA-256 of the remote name: the
//! same remote name gives the same local name in every process and on every refresh, and
//! two remote names differ in their digests (a 40-bit collision among one server's tools
//! is also caught: registration refuses a name already taken, see `Shared::rebuild`).

use sha2::{Digest, Sha256};
use toolset_rules::{MAX_NAME_LEN, is_valid_tool_name};

/// How many hex digits of the remote name's SHA-256 a shortened name ends with.
const DIGEST_DIGITS: usize = 10;

/// The local name of the remote tool `remote` in the namespace `label`: `label_remote`
/// when that is a valid tool name, otherwise the shortened form described in the module
/// documentation.
pub(crate) fn local_name(label: &str, remote: &str) -> String {
    let plain = format!("{label}_{remote}");
    if is_valid_tool_name(&plain) {
        return plain;
    }
    let digest = Sha256::digest(remote.as_bytes());
    let mut suffix = String::with_capacity(DIGEST_DIGITS + 1);
    suffix.push('_');
    suffix.push_str(&crate::digest::hex(&digest[..DIGEST_DIGITS / 2]));
    let room = MAX_NAME_LEN.saturating_sub(label.len() + 1 + suffix.len());
    let kept: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(room)
        .collect();
    format!("{label}_{kept}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_combined_name_is_kept_as_it_is() {
        assert_eq!(local_name("crm", "search"), "crm_search");
        let longest = "a".repeat(MAX_NAME_LEN - 4);
        assert_eq!(local_name("crm", &longest), format!("crm_{longest}"));
    }

    #[test]
    fn a_name_past_the_limit_or_outside_the_grammar_is_shortened_validly_and_stably() {
        let long = format!("{}_one", "x".repeat(70));
        let long_too = format!("{}_two", "x".repeat(70));
        for remote in [
            long.as_str(),
            long_too.as_str(),
            "files.read",
            "ünïcode",
            "a/b c",
        ] {
            let name = local_name("crm", remote);
            assert!(is_valid_tool_name(&name), "{remote} -> {name}");
            assert!(name.starts_with("crm_"), "{name}");
            assert_eq!(name, local_name("crm", remote), "deterministic");
        }
        assert_eq!(local_name("crm", &long).len(), MAX_NAME_LEN);
        assert_ne!(local_name("crm", &long), local_name("crm", &long_too));
        // `files.read` and `files_read` are two tools: the shortened one is told apart.
        assert_ne!(
            local_name("crm", "files.read"),
            local_name("crm", "files_read")
        );
        assert!(local_name("crm", "files.read").starts_with("crm_files_read_"));
    }
}
