use toolset::{Escalation, tool};

fn never(_args: &wipe) -> Option<Escalation> {
    None
}

/// Wipe the disk.
#[tool(tier = "irreversible", escalate = never)]
pub async fn wipe() {}

fn main() {}
