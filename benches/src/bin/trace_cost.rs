//! Instructions per call of dispatch and of gate + apply, with and without a tracing
//! subscriber, for `valgrind --tool=callgrind` (instruction counts do not depend on the
//! load of a shared machine). Run it twice with different iteration counts: the
//! difference divided by the extra calls is the cost of one call, setup excluded.
//!
//! ```sh
//! cargo build --release -p toolset-benches --bin trace_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/trace_cost gate_apply none 2000
//! ```
//!
//! `<workload>`: `dispatch` (name lookup, typed parse, `T::dispatch`: 16 calls over the
//! 100-tool set) or `gate_apply` (`Tools::gate` then `Tools::apply` of a 10-call program).
//! `<subscriber>`: `none`, or `otel` (`tracing-opentelemetry` into the OpenTelemetry SDK,
//! simple processor, in-memory exporter, reset every iteration).

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use std::hint::black_box;
use std::process::ExitCode;
use toolset::prelude::ToolSet;
use toolset::prelude::*;
use toolset::set::Access;
use toolset::{Autonomy, ToolContext};
use toolset_benches::{program, runtime, spread_calls, toolset_100};
use tracing_subscriber::layer::SubscriberExt;

type Tools = toolset_100::Tools;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(workload), Some(subscriber), Some(Ok(iterations))) = (
        args.first(),
        args.get(1),
        args.get(2).map(|n| n.parse::<usize>()),
    ) else {
        eprintln!("usage: trace_cost <dispatch|gate_apply> <none|otel> <iterations>");
        return ExitCode::FAILURE;
    };
    let exporter = InMemorySpanExporter::default();
    let work = || run(workload, iterations, &exporter);
    let calls = match subscriber.as_str() {
        "none" => work(),
        "otel" => {
            let provider = SdkTracerProvider::builder()
                .with_simple_exporter(exporter.clone())
                .build();
            let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("trace_cost"));
            tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), work)
        }
        other => {
            eprintln!("unknown subscriber {other:?}: none or otel");
            return ExitCode::FAILURE;
        }
    };
    match calls {
        Some(calls) => {
            println!("{calls} calls");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("unknown workload {workload:?}: dispatch or gate_apply");
            ExitCode::FAILURE
        }
    }
}

/// Runs `iterations` of `workload`; the number of calls made.
fn run(workload: &str, iterations: usize, exporter: &InMemorySpanExporter) -> Option<usize> {
    let rt = runtime();
    let ctx = ToolContext::default();
    let mut state = toolset_100::State::default();
    match workload {
        "dispatch" => {
            let calls = spread_calls(100);
            for _ in 0..iterations {
                rt.block_on(async {
                    for (name, args) in &calls {
                        let name = <Tools as ToolSet>::Name::from_name(name)?;
                        let call = Tools::parse(name, args).ok()?;
                        let output =
                            Tools::dispatch(Access::Exclusive(&mut state), &ctx, call).await;
                        black_box(output.ok()?);
                    }
                    Some(())
                })?;
            }
            Some(iterations * calls.len())
        }
        "gate_apply" => {
            let calls = program(100, 10);
            for _ in 0..iterations {
                let plan = Tools::gate(calls.clone(), Autonomy::Reversible).ok()?;
                black_box(rt.block_on(Tools::apply(&mut state, &ctx, plan)));
                exporter.reset();
            }
            Some(iterations * calls.len())
        }
        _ => None,
    }
}
