#![deny(warnings)]
//! `reads = "..."` and `sends = "..."`: what a tool touches, for the gate's trifecta rule.
//! `reads` names one label or both, separated by commas; a propose-only tool may carry
//! labels too (an approved call runs, and its output enters the run).

use toolset::prelude::*;
use toolset::{tool, toolset};

/// Read the user's inbox.
#[tool(tier = "read_only", reads = "private")]
pub async fn read_inbox() -> String {
    String::new()
}

/// Read an email someone else wrote, in the user's inbox.
#[tool(tier = "read_only", reads = "untrusted,private")]
pub async fn read_mail(id: u32) -> String {
    id.to_string()
}

/// Send an email.
#[tool(tier = "external_reversible", sends = "outside")]
pub async fn send_email(to: String) -> String {
    to
}

fn publish_preview(post: &Publish) -> String {
    format!("Publish: {}", post.text)
}

/// Publish a post the human writes with the agent.
#[tool(
    tier = "irreversible",
    propose_only,
    preview = publish_preview,
    sends = "outside",
    reads = "untrusted"
)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Publish {
    /// The post's text.
    pub text: String,
}

toolset! {
    /// Labelled tools.
    pub Labelled = [read_inbox, read_mail, send_email, Publish];
}

pub fn main() {
    let labels = |name: &str| {
        Labelled::specs()
            .iter()
            .find(|spec| spec.name() == name)
            .map(|spec| spec.labels())
    };
    assert!(labels("read_mail").is_some_and(|l| l.reads_private() && l.reads_untrusted()));
    assert!(labels("publish").is_some_and(|l| l.sends_outside()));
}
