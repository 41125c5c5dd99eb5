#![deny(warnings)]
//! A handler with thirty arguments besides the state: no handler is too wide for the
//! check that none of its arguments is the set's state.

use toolset::{tool, toolset};

pub struct Tally {
    pub total: u64,
}

/// Add thirty numbers to the tally.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)]
pub async fn add_thirty(
    tally: &mut Tally,
    a0: u64,
    a1: u64,
    a2: u64,
    a3: u64,
    a4: u64,
    a5: u64,
    a6: u64,
    a7: u64,
    a8: u64,
    a9: u64,
    a10: u64,
    a11: u64,
    a12: u64,
    a13: u64,
    a14: u64,
    a15: u64,
    a16: u64,
    a17: u64,
    a18: u64,
    a19: u64,
    a20: u64,
    a21: u64,
    a22: u64,
    a23: u64,
    a24: u64,
    a25: u64,
    a26: u64,
    a27: u64,
    a28: u64,
    a29: u64,
) -> String {
    tally.total += a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 + a16 + a17 + a18 + a19 + a20 + a21 + a22 + a23 + a24 + a25 + a26 + a27 + a28 + a29;
    tally.total.to_string()
}

toolset! {
    /// The tally's tools.
    pub TallyTools<Tally> = [add_thirty];
}

fn main() {
    use toolset::ToolSet;
    let spec = TallyTools::spec("add_thirty").expect("declared");
    let properties = spec.input_schema()["properties"].as_object().map(|p| p.len());
    assert_eq!(properties, Some(30));
}
