//! A minimal `toolset!`: one stateless tool in a set without `<State>`.

use toolset::{tool, toolset};

/// Tell the current time.
#[tool(tier = "read_only")]
pub async fn now() -> &'static str {
    "2026-11-30T00:00:00Z"
}

toolset! {
    /// The clock's tools.
    pub Clock = [now];
}
