use toolset::{Tier, tool};

// Returns a bare tier: an escalation must say why, and may keep the declared tier.
fn large(args: &transfer) -> Tier {
    if args.cents > 100_000 {
        Tier::Irreversible
    } else {
        Tier::Reversible
    }
}

/// Send money to a saved payee.
#[tool(tier = "reversible", escalate = large)]
pub async fn transfer(cents: u64) -> String {
    format!("sent {cents}")
}

fn main() {}
