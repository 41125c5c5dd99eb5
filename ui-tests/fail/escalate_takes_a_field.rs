use toolset::{Escalation, Tier, tool};

// Takes the field, not the tool's arguments struct.
fn large(cents: u64) -> Option<Escalation> {
    (cents > 100_000).then(|| Escalation::to(Tier::Irreversible, "a large transfer"))
}

/// Send money to a saved payee.
#[tool(tier = "reversible", escalate = large)]
pub async fn transfer(cents: u64) -> String {
    format!("sent {cents}")
}

fn main() {}
