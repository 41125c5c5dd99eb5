//! `dispatch`: one call, from the model's raw JSON arguments to the handler's result, on
//! sets of 10, 100 and 1000 tools, every implementation in the same run:
//!
//! - `toolset` — `Name::from_name` + `T::parse` + `T::dispatch`;
//! - `toolset_gate_apply` — the whole path: `gate` of a 1-call program, then `apply`;
//! - `hand` — `match name { "tool_7" => serde_json::from_str::<Tool7Args>(args) … }`;
//! - `rmcp_cached` — rmcp's `ToolRouter` built once, `router.call(ToolCallContext…)`;
//! - `rmcp_default` — `ServerHandler::call_tool` as `#[tool_handler]` writes it, which
//!   rebuilds the router (`Self::tool_router()`) on every request.
//!
//! Each iteration makes `CALLS` (16) calls spread evenly over the set; criterion reports
//! time per iteration and calls per second (divide the time by 16 for one call).
//!
//! `tool_list_cached` (same target, because it has every size compiled in): the cached
//! MCP tool list of the toolset sets, to show it costs the same at every size.
//!
//! The 1000-tool sets are compiled only with `TOOLSET_BENCH_LARGE=1` (see `build.rs`).

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, JsonObject};
use std::hint::black_box;
use toolset::consumer::{Format, Order, tool_list};
use toolset::prelude::ToolSet;
use toolset::prelude::*;
use toolset::set::Access;
use toolset::{Autonomy, ToolCall, ToolContext, ToolError, ToolOutput};
use toolset_benches::{
    CALLS, RmcpPeer, hand_10, hand_100, rmcp_10, rmcp_100, runtime, spread_calls, toolset_10,
    toolset_100,
};

#[cfg(large_sets)]
use toolset_benches::hand_1000;
#[cfg(large_sets)]
use toolset_benches::rmcp_1000;
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

/// toolset without the gate: name lookup, typed parse, dispatch.
async fn toolset_call<T: ToolSet>(
    state: &mut T::State,
    ctx: &ToolContext,
    name: &str,
    args: &str,
) -> Result<ToolOutput, ToolError> {
    let name = T::Name::from_name(name).ok_or_else(|| ToolError::failed("unknown tool"))?;
    let call = T::parse(name, args).map_err(|error| ToolError::failed(error.to_string()))?;
    T::dispatch(Access::Exclusive(state), ctx, call).await
}

/// The raw JSON arguments as rmcp receives them: a JSON object.
fn rmcp_arguments(args: &str) -> JsonObject {
    serde_json::from_str(args).expect("the fixture's arguments are a JSON object")
}

/// Runs every implementation of one size.
macro_rules! bench_size {
    ($c:expr, $n:literal, $toolset:ident, $hand:ident, $rmcp:ident) => {{
        let mut group = $c.benchmark_group("dispatch");
        group.throughput(Throughput::Elements(CALLS as u64));
        let rt = runtime();
        let calls = spread_calls($n);

        let ctx = ToolContext::default();
        let mut state = $toolset::State::default();
        group.bench_function(BenchmarkId::new("toolset", $n), |b| {
            b.iter_batched(
                || (),
                |()| {
                    rt.block_on(async {
                        let mut outputs = Vec::with_capacity(CALLS);
                        for (name, args) in &calls {
                            outputs.push(
                                toolset_call::<$toolset::Tools>(&mut state, &ctx, name, args).await,
                            );
                        }
                        outputs
                    })
                },
                BatchSize::SmallInput,
            )
        });

        let programs: Vec<ToolCall> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall::new(format!("call_{i}"), *name, args.as_str()))
            .collect();
        group.bench_function(BenchmarkId::new("toolset_gate_apply", $n), |b| {
            b.iter_batched(
                || programs.clone(),
                |programs| {
                    rt.block_on(async {
                        let mut reports = Vec::with_capacity(CALLS);
                        for call in programs {
                            let plan = $toolset::Tools::gate([call], Autonomy::Reversible)
                                .expect("the fixture's calls are valid");
                            reports.push($toolset::Tools::apply(&mut state, &ctx, plan).await);
                        }
                        reports
                    })
                },
                BatchSize::SmallInput,
            )
        });

        let mut state = $hand::State::default();
        group.bench_function(BenchmarkId::new("hand", $n), |b| {
            b.iter_batched(
                || (),
                |()| {
                    rt.block_on(async {
                        let mut outputs = Vec::with_capacity(CALLS);
                        for (name, args) in &calls {
                            outputs.push($hand::dispatch(&mut state, name, args).await);
                        }
                        outputs
                    })
                },
                BatchSize::SmallInput,
            )
        });

        let service = rt.block_on(async { RmcpPeer::start($rmcp::Server::default()) });
        let router: ToolRouter<$rmcp::Server> = $rmcp::Server::cached_router();
        group.bench_function(BenchmarkId::new("rmcp_cached", $n), |b| {
            b.iter_batched(
                || (),
                |()| {
                    rt.block_on(async {
                        let mut outputs = Vec::with_capacity(CALLS);
                        for (i, (name, args)) in calls.iter().enumerate() {
                            let params = CallToolRequestParams::new(*name)
                                .with_arguments(rmcp_arguments(args));
                            let context = ToolCallContext::new(
                                service.server(),
                                params,
                                service.context(i as i64),
                            );
                            outputs.push(router.call(context).await);
                        }
                        outputs
                    })
                },
                BatchSize::SmallInput,
            )
        });

        group.bench_function(BenchmarkId::new("rmcp_default", $n), |b| {
            b.iter_batched(
                || (),
                |()| {
                    rt.block_on(async {
                        let mut outputs = Vec::with_capacity(CALLS);
                        for (i, (name, args)) in calls.iter().enumerate() {
                            let params = CallToolRequestParams::new(*name)
                                .with_arguments(rmcp_arguments(args));
                            outputs.push(
                                service
                                    .server()
                                    .call_tool(params, service.context(i as i64))
                                    .await,
                            );
                        }
                        outputs
                    })
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
        black_box((state, service));
    }};
}

fn dispatch(c: &mut Criterion) {
    bench_size!(c, 10, toolset_10, hand_10, rmcp_10);
    bench_size!(c, 100, toolset_100, hand_100, rmcp_100);
    #[cfg(large_sets)]
    bench_size!(c, 1000, toolset_1000, hand_1000, rmcp_1000);
}

/// The cached tool list: after the first render, the same `&'static str` at any size.
fn tool_list_cached(c: &mut Criterion) {
    let mut group = c.benchmark_group("tool_list_cached");
    macro_rules! size {
        ($n:literal, $toolset:ident) => {
            let first = tool_list::<$toolset::Tools>(Format::Mcp, Order::Declared);
            assert!(first.len() > $n * 100, "every tool is rendered");
            group.bench_function(BenchmarkId::new("toolset_mcp", $n), |b| {
                b.iter(|| tool_list::<$toolset::Tools>(black_box(Format::Mcp), Order::Declared))
            });
        };
    }
    size!(10, toolset_10);
    size!(100, toolset_100);
    #[cfg(large_sets)]
    size!(1000, toolset_1000);
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = dispatch, tool_list_cached
}
criterion_main!(benches);
