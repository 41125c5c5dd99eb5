#![deny(warnings)]
//! `#[mcp_header("...")]` on a string, an integer and a bool argument, documented or not,
//! beside an argument with `#[serde]` (schemars' derive writes that schema): each
//! property carries its `x-mcp-header`, in the canonical schema MCP lists.

use toolset::prelude::ToolSet;
use toolset::{tool, toolset};

/// Say the weather of a region.
#[tool(tier = "read_only")]
pub async fn weather(
    /// The region.
    #[mcp_header("Region")]
    region: String,
    #[mcp_header("Days")] days: u8,
    #[mcp_header("Metric")] metric: bool,
) -> String {
    format!("{region} {days} {metric}")
}

/// Say the tide of a harbour.
#[tool(tier = "read_only")]
pub async fn tide(
    #[mcp_header("Harbour")] harbour: String,
    /// How many hours ahead.
    #[serde(default)]
    hours: u32,
) -> String {
    format!("{harbour} {hours}")
}

toolset! {
    /// Mirrored arguments.
    pub Mirrored = [weather, tide];
}

pub fn main() {
    let header = |tool: &str, property: &str| {
        Mirrored::specs()
            .iter()
            .find(|spec| spec.name() == tool)
            .and_then(|spec| spec.input_schema()["properties"][property].get("x-mcp-header"))
            .and_then(|header| header.as_str().map(str::to_owned))
    };
    assert_eq!(header("weather", "region").as_deref(), Some("Region"));
    assert_eq!(header("weather", "days").as_deref(), Some("Days"));
    assert_eq!(header("weather", "metric").as_deref(), Some("Metric"));
    assert_eq!(header("tide", "harbour").as_deref(), Some("Harbour"));
    assert_eq!(header("tide", "hours"), None);
}
