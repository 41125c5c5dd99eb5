#![deny(warnings)]
//! `escalate = path`: a fn from the typed arguments to `Option<Escalation>`, by path or
//! in a module, on the fn form and the `#[args]` form.

use toolset::prelude::*;
use toolset::{Autonomy, Escalation, Tier, tool, toolset};

fn outside(args: &send) -> Option<Escalation> {
    (!args.to.ends_with("@example.com"))
        .then(|| Escalation::to(Tier::Irreversible, "a message to an outside address"))
}

/// Send a message.
#[tool(tier = "external_reversible", escalate = outside)]
pub async fn send(to: String) -> String {
    format!("sent to {to}")
}

mod limits {
    use toolset::{Escalation, Tier};

    /// Moves above the limit need a human.
    pub fn above(args: &super::Move) -> Option<Escalation> {
        (args.cents > 100).then(|| Escalation::to(Tier::ExternalReversible, "above 100 cents"))
    }
}

/// The arguments of a move.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Move {
    /// How much.
    pub cents: u64,
}

/// Move money between the user's own accounts.
#[tool(tier = "reversible", escalate = limits::above)]
pub async fn move_money(#[args] args: Move) -> String {
    format!("moved {}", args.cents)
}

toolset! {
    /// Tools that escalate.
    pub Escalating = [send, move_money];
}

pub fn main() {
    let calls = [
        toolset::ToolCall::new("a", "send", r#"{"to":"me@example.com"}"#),
        toolset::ToolCall::new("b", "send", r#"{"to":"x@evil.example"}"#),
        toolset::ToolCall::new("c", "move_money", r#"{"cents":500}"#),
    ];
    let plan = Escalating::gate(calls, Autonomy::ExternalReversible).expect("valid");
    let proposed: Vec<&str> = plan
        .proposals()
        .iter()
        .map(|p| p.call().id.as_str())
        .collect();
    assert_eq!(proposed, ["b"]);
    assert_eq!(plan.proposals()[0].tier(), Tier::Irreversible);
}
