#![deny(warnings)]
//! Every optional key of `#[tool]`: `name`, `title`, `timeout_ms`, `deferred`,
//! `late_result`, `idempotent`, `preview = path`, `example` (repeated), and `description` instead of a
//! doc comment.

use std::time::Duration;
use toolset::prelude::*;
use toolset::{tool, toolset};

fn archive_preview(args: &archive) -> String {
    format!("archive item {}", args.id)
}

/// Archive an item.
#[tool(
    tier = "reversible",
    name = "archive-item",
    title = "Archive",
    timeout_ms = 2_000,
    deferred,
    late_result,
    idempotent,
    preview = archive_preview,
    example = r#"{"id": 7}"#,
    example = "{\"id\": 8}"
)]
pub async fn archive(id: u32) -> String {
    format!("archived {id}")
}

/// A flag can be spelled out, and `false` leaves it off.
#[tool(
    tier = "read_only",
    deferred = false,
    late_result = false,
    idempotent = true
)]
pub async fn ping() -> &'static str {
    "pong"
}

#[tool(
    tier = "external_reversible",
    description = "Send a calendar invite. The description key stands in for a doc comment."
)]
pub async fn invite(to: String) -> String {
    to
}

mod previews {
    pub fn invite(args: &super::invite_twice) -> &'static str {
        if args.to.is_empty() {
            "nobody"
        } else {
            "somebody"
        }
    }
}

/// A preview by path, returning anything `Into<String>`.
#[tool(tier = "external_reversible", preview = previews::invite)]
pub async fn invite_twice(to: String) -> String {
    to
}

toolset! {
    /// Tools with every key.
    pub Tools = [archive, ping, invite, invite_twice];
}

pub fn main() {
    let archive = Tools::spec("archive-item").expect("renamed");
    assert_eq!(archive.title(), Some("Archive"));
    assert_eq!(archive.timeout(), Some(Duration::from_millis(2_000)));
    assert!(archive.is_deferred() && archive.is_idempotent() && archive.has_preview());
    assert!(archive.has_late_result());
    assert!(!Tools::spec("ping").expect("declared").has_late_result());
    assert!(Tools::spec("archive").is_none());
    let examples: Vec<String> = archive.examples().iter().map(ToString::to_string).collect();
    assert_eq!(examples, [r#"{"id":7}"#, r#"{"id":8}"#]);
    assert_eq!(Tools::check_declarations(), Ok(()));

    let ping = Tools::spec("ping").expect("declared");
    assert!(!ping.is_deferred() && ping.is_idempotent() && !ping.has_preview());

    let invite = Tools::spec("invite").expect("declared");
    assert!(invite.description().starts_with("Send a calendar invite."));
}
