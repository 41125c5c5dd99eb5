//! `tool_list`: the tool list of a 100-tool set, rendered for OpenAI (Chat), Anthropic,
//! Gemini and MCP, every implementation in the same run:
//!
//! - `toolset_cached` — `toolset::consumer::tool_list::<T>(format, Order::Declared)`, the
//!   call every request makes: rendered once, then the same `&'static str`;
//! - `toolset_render` — `toolset::consumer::render_specs`, the uncached renderer (what the
//!   first request pays, less generating the schemas, which the specs cache);
//! - `rmcp_cached` (MCP only: rmcp renders no other format) — `router.list_all()` on a
//!   router built once, serialized as the `tools/list` result;
//! - `rmcp_default` (MCP only) — `ServerHandler::list_tools` as `#[tool_handler]` writes
//!   it (rebuilding the router), serialized.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rmcp::ServerHandler;
use rmcp::model::ListToolsResult;
use std::hint::black_box;
use toolset::ToolSpec;
use toolset::consumer::{Format, Order, render_specs, tool_list};
use toolset::prelude::*;
use toolset_benches::{RmcpPeer, rmcp_100, runtime, toolset_100};

type Tools = toolset_100::Tools;

fn tool_lists(c: &mut Criterion) {
    let specs: Vec<&ToolSpec> = Tools::specs().iter().collect();
    for format in [
        Format::OpenAiChat,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ] {
        let mut group = c.benchmark_group(format!("tool_list/{format}"));
        // The first call renders and fills the cache; every later one reads it.
        let first = tool_list::<Tools>(format, Order::Declared);
        assert_eq!(first, render_specs(&specs, format));
        group.bench_function(BenchmarkId::new("toolset_cached", 100), |b| {
            b.iter(|| tool_list::<Tools>(black_box(format), Order::Declared))
        });
        group.bench_function(BenchmarkId::new("toolset_render", 100), |b| {
            b.iter(|| render_specs(black_box(&specs), format))
        });
        if format == Format::Mcp {
            let rt = runtime();
            let router = rmcp_100::Server::cached_router();
            group.bench_function(BenchmarkId::new("rmcp_cached", 100), |b| {
                b.iter(|| {
                    let result = ListToolsResult::with_all_items(router.list_all());
                    serde_json::to_string(&result).expect("a tool list serializes")
                })
            });
            let service = rt.block_on(async { RmcpPeer::start(rmcp_100::Server::default()) });
            group.bench_function(BenchmarkId::new("rmcp_default", 100), |b| {
                b.iter(|| {
                    rt.block_on(async {
                        let result = service
                            .server()
                            .list_tools(None, service.context(1))
                            .await
                            .expect("listing tools succeeds");
                        serde_json::to_string(&result).expect("a tool list serializes")
                    })
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = tool_lists
}
criterion_main!(benches);
