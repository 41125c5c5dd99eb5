#![deny(warnings)]
//! A handler with thirty arguments of thirty types besides the state: no handler is too
//! wide for the check that none of its arguments is the set's state.

use toolset::{tool, toolset};

pub struct Tally {
    pub total: u64,
}

/// Take thirty arguments, each of another type, and count the call.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)]
pub async fn add_thirty(
    tally: &mut Tally,
    a0: u8,
    a1: u16,
    a2: u32,
    a3: u64,
    a4: u128,
    a5: usize,
    a6: i8,
    a7: i16,
    a8: i32,
    a9: i64,
    a10: i128,
    a11: isize,
    a12: bool,
    a13: char,
    a14: String,
    a15: Option<u8>,
    a16: Option<u16>,
    a17: Option<u32>,
    a18: Option<u64>,
    a19: Option<u128>,
    a20: Option<usize>,
    a21: Option<i8>,
    a22: Option<i16>,
    a23: Option<i32>,
    a24: Option<i64>,
    a25: Option<i128>,
    a26: Option<isize>,
    a27: Option<bool>,
    a28: Option<char>,
    a29: Option<String>,
) -> String {
    // Thirty distinct types, so the state check searches a list thirty long.
    let _ = (
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18,
        a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29,
    );
    tally.total += 1;
    tally.total.to_string()
}

toolset! {
    /// The tally's tools.
    pub TallyTools<Tally> = [add_thirty];
}

fn main() {
    use toolset::prelude::ToolSet;
    let spec = TallyTools::spec("add_thirty").expect("declared");
    let properties = spec.input_schema()["properties"].as_object().map(|p| p.len());
    assert_eq!(properties, Some(30));
}
