use toolset::tool;

/// Seventeen arguments as parameters: one more than the state check has slots for.
#[tool(tier = "read_only")]
#[allow(clippy::too_many_arguments)]
pub async fn wide(
    a0: u8, a1: u8, a2: u8, a3: u8, a4: u8, a5: u8, a6: u8, a7: u8, a8: u8,
    a9: u8, a10: u8, a11: u8, a12: u8, a13: u8, a14: u8, a15: u8, a16: u8,
) -> u8 {
    a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ a12 ^ a13 ^ a14 ^ a15 ^ a16
}

fn main() {}
