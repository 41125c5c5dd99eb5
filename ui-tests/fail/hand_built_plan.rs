// A plan can only come from the gate: code outside the crate cannot build one, so a
// proposal cannot be smuggled into `apply`.
use toolset::{tool, toolset};
use toolset::plan::Plan;

/// Delete everything.
#[tool(tier = "irreversible")]
pub async fn delete_all() -> String {
    "deleted".into()
}

toolset! {
    /// Dangerous tools.
    pub Tools = [delete_all];
}

fn main() {
    let _plan: Plan<Tools> = Plan {
        calls: Vec::new(),
        steps: Vec::new(),
        proposals: Vec::new(),
        concealed: Default::default(),
        keys: None,
    };
}
