//! Peak-memory probe: holds the 1000-tool set and renders its tool lists, so that
//! `/usr/bin/time -v` can report the process's peak RSS (`benches/memory.sh` runs it).
//!
//! `rss baseline` does nothing (the floor of any process); `rss toolset` renders every
//! format of the toolset set (OpenAI Chat and Responses, Anthropic, Gemini, MCP, prompt)
//! and keeps them cached; `rss toolset-mcp` renders only the MCP list; `rss rmcp` builds
//! rmcp's router of the same 1000 tools and serializes its `tools/list` result.
//!
//! The 1000-tool sets are compiled in only with `TOOLSET_BENCH_LARGE=1` (see `build.rs`).

use std::process::ExitCode;
#[cfg(large_sets)]
use toolset::consumer::{Format, Order, tool_list};
#[cfg(large_sets)]
use toolset_benches::rmcp_1000;
#[cfg(large_sets)]
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

#[cfg(not(large_sets))]
fn main() -> ExitCode {
    eprintln!("the 1000-tool set is not compiled in: build with TOOLSET_BENCH_LARGE=1");
    ExitCode::FAILURE
}

#[cfg(large_sets)]
fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let bytes: usize = match mode.as_str() {
        "baseline" => 0,
        "toolset" => Format::ALL
            .iter()
            .map(|format| tool_list::<toolset_1000::Tools>(*format, Order::Declared).len())
            .sum(),
        "toolset-mcp" => tool_list::<toolset_1000::Tools>(Format::Mcp, Order::Declared).len(),
        "rmcp" => {
            let router = rmcp_1000::Server::cached_router();
            let result = rmcp::model::ListToolsResult::with_all_items(router.list_all());
            let json = serde_json::to_string(&result).expect("a tool list serializes");
            std::hint::black_box(&router);
            json.len()
        }
        _ => {
            eprintln!("usage: rss baseline|toolset|toolset-mcp|rmcp");
            return ExitCode::FAILURE;
        }
    };
    println!("{mode}: rendered {bytes} bytes");
    ExitCode::SUCCESS
}
