#![deny(warnings)]
//! A propose-only tool: an args struct with no handler, listed beside handlers.

use schemars::JsonSchema;
use serde::Deserialize;
use toolset::prelude::*;
use toolset::{Tier, tool, toolset};

pub struct Inbox;

fn reply_preview(reply: &SendReply) -> String {
    format!("To: {}\n\n{}", reply.to, reply.body)
}

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible", propose_only, preview = reply_preview, title = "Send reply")]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
    /// The reply's text.
    pub body: String,
}

/// A propose-only tool with a name override, described by the key.
#[tool(
    tier = "irreversible",
    propose_only,
    name = "wire",
    description = "WIRE money. You prepare it; a human sends it."
)]
#[derive(Deserialize, JsonSchema)]
pub struct WireFunds {
    /// The amount, in cents.
    pub amount_cents: u64,
}

/// Read the inbox.
#[tool(tier = "read_only")]
pub async fn read(state: &Inbox) -> &'static str {
    let Inbox = state;
    "empty"
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [read, SendReply, WireFunds];
}

pub fn main() {
    let send = InboxTools::spec("send_reply").expect("snake_cased struct name");
    assert!(send.is_propose_only() && send.has_preview());
    assert_eq!(send.tier(), Tier::Irreversible);
    assert_eq!(send.title(), Some("Send reply"));
    assert_eq!(
        send.input_schema()["additionalProperties"],
        serde_json::json!(false),
        "propose-only arguments reject unknown keys"
    );
    let wire = InboxTools::spec("wire").expect("renamed");
    assert_eq!(
        wire.input_schema()["required"],
        serde_json::json!(["amount_cents"])
    );
    let reply = SendReply {
        to: "a@b.c".into(),
        body: "hi".into(),
    };
    assert_eq!(reply_preview(&reply.clone()), "To: a@b.c\n\nhi");
    let _ = WireFunds { amount_cents: 1 }.amount_cents;
}
