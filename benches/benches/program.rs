//! `program`: gate + apply (and the gate alone, `toolset_gate`) of programs of 1, 10, 100
//! and 1000 calls on the 100-tool set,
//! side by side with a hand-written dispatcher doing the same work (parse every call,
//! rejecting the program on the first bad one, then run them all in order).
//!
//! Throughput is in calls, so criterion's per-element rate shows whether the cost per
//! call stays flat as the program grows (it should: the cost is linear).

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;
use toolset::{Autonomy, ToolContext};
use toolset_benches::{fixture, program, runtime};

fixture!(toolset_100);
fixture!(hand_100 {
    toolset_benches::fixture!(hand_program_100);
});

/// What the hand-written dispatcher hands back for a program: every call's result, or
/// the first call that did not parse.
type HandOutcome = Result<Vec<String>, (usize, hand_100::Error)>;

async fn hand_program(state: &mut hand_100::State, calls: &[toolset::ToolCall]) -> HandOutcome {
    let mut parsed = Vec::with_capacity(calls.len());
    for (index, call) in calls.iter().enumerate() {
        let typed = hand_100::hand_program_100::parse(&call.name, &call.arguments)
            .map_err(|error| (index, error))?;
        parsed.push(typed);
    }
    let mut results = Vec::with_capacity(parsed.len());
    for typed in parsed {
        results.push(hand_100::hand_program_100::run(state, typed).await);
    }
    Ok(results)
}

fn programs(c: &mut Criterion) {
    let rt = runtime();
    let ctx = ToolContext::default();
    let mut group = c.benchmark_group("program");
    for len in [1_usize, 10, 100, 1000] {
        let calls = program(100, len);
        group.throughput(Throughput::Elements(len as u64));

        let mut state = toolset_100::State::default();
        group.bench_function(BenchmarkId::new("toolset_gate_apply", len), |b| {
            b.iter_batched(
                || calls.clone(),
                |calls| {
                    let plan = toolset_100::Tools::gate(calls, Autonomy::Reversible)
                        .expect("the program is valid");
                    rt.block_on(toolset_100::Tools::apply(&mut state, &ctx, plan))
                },
                BatchSize::SmallInput,
            )
        });

        // The gate alone: what verifying and planning cost per call, before any handler.
        group.bench_function(BenchmarkId::new("toolset_gate", len), |b| {
            b.iter_batched(
                || calls.clone(),
                |calls| {
                    toolset_100::Tools::gate(calls, Autonomy::Reversible)
                        .expect("the program is valid")
                },
                BatchSize::SmallInput,
            )
        });

        let mut state = hand_100::State::default();
        group.bench_function(BenchmarkId::new("hand", len), |b| {
            b.iter_batched(
                || (),
                |()| rt.block_on(hand_program(&mut state, &calls)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = programs
}
criterion_main!(benches);
