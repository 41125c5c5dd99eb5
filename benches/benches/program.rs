//! `program`: gate + apply (and the gate alone, `toolset_gate`) of programs of 1, 10, 100
//! and 1000 calls on the 100-tool set,
//! side by side with a hand-written dispatcher doing the same work (parse every call,
//! rejecting the program on the first bad one, then run them all in order) and with the
//! bare floor (`hand_each`: parse a call and run it, call by call);
//! `program_100_calls`: the same for a 100-call program on the 10-, 100- (and with
//! `TOOLSET_BENCH_LARGE=1`, 1000-) tool set, so the cost per call can be compared
//! across sizes.
//!
//! Throughput is in calls, so criterion's per-element rate shows whether the cost per
//! call stays flat as the program grows (it should: the cost is linear).

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolset::prelude::*;
use toolset::{Autonomy, ToolContext};
use toolset_benches::{hand_10, hand_100, program, runtime, toolset_10, toolset_100};

#[cfg(large_sets)]
use toolset_benches::hand_1000;
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

/// The hand-written dispatcher of one generated set: parses every call (the program is
/// rejected, with the index, at the first that does not parse), then runs them all.
macro_rules! hand_program {
    ($hand:ident :: $program:ident) => {
        async |state: &mut $hand::State,
               calls: &[toolset::ToolCall]|
               -> Result<Vec<String>, (usize, $hand::Error)> {
            let mut parsed = Vec::with_capacity(calls.len());
            for (index, call) in calls.iter().enumerate() {
                let typed = $hand::$program::parse(&call.name, &call.arguments.text())
                    .map_err(|error| (index, error))?;
                parsed.push(typed);
            }
            let mut results = Vec::with_capacity(parsed.len());
            for typed in parsed {
                results.push($hand::$program::run(state, typed).await);
            }
            Ok(results)
        }
    };
}

/// The bare floor of one generated set: a `match` on the name and `serde_json::from_str`
/// of the arguments, each call run as soon as it is parsed (nothing checked across calls;
/// a bad call stops the program where it is, after the calls before it ran).
macro_rules! hand_each {
    ($hand:ident :: $program:ident) => {
        async |state: &mut $hand::State,
               calls: &[toolset::ToolCall]|
               -> Result<Vec<String>, (usize, $hand::Error)> {
            let mut results = Vec::with_capacity(calls.len());
            for (index, call) in calls.iter().enumerate() {
                let typed = $hand::$program::parse(&call.name, &call.arguments.text())
                    .map_err(|error| (index, error))?;
                results.push($hand::$program::run(state, typed).await);
            }
            Ok(results)
        }
    };
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
        let hand_program = hand_program!(hand_100::hand_program_100);
        group.bench_function(BenchmarkId::new("hand", len), |b| {
            b.iter_batched(
                || (),
                |()| rt.block_on(hand_program(&mut state, &calls)),
                BatchSize::SmallInput,
            )
        });
        let hand_each = hand_each!(hand_100::hand_program_100);
        group.bench_function(BenchmarkId::new("hand_each", len), |b| {
            b.iter_batched(
                || (),
                |()| rt.block_on(hand_each(&mut state, &calls)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

/// A 100-call program at one set size: gate + apply beside the hand-written dispatcher.
macro_rules! hundred_calls {
    ($group:expr, $n:literal, $toolset:ident, $hand:ident :: $program:ident) => {{
        let rt = runtime();
        let ctx = ToolContext::default();
        let calls = program($n, 100);
        let mut state = $toolset::State::default();
        $group.bench_function(BenchmarkId::new("toolset_gate_apply", $n), |b| {
            b.iter_batched(
                || calls.clone(),
                |calls| {
                    let plan = $toolset::Tools::gate(calls, Autonomy::Reversible)
                        .expect("the program is valid");
                    rt.block_on($toolset::Tools::apply(&mut state, &ctx, plan))
                },
                BatchSize::SmallInput,
            )
        });
        let mut state = $hand::State::default();
        let hand_program = hand_program!($hand::$program);
        $group.bench_function(BenchmarkId::new("hand", $n), |b| {
            b.iter_batched(
                || (),
                |()| rt.block_on(hand_program(&mut state, &calls)),
                BatchSize::SmallInput,
            )
        });
        let hand_each = hand_each!($hand::$program);
        $group.bench_function(BenchmarkId::new("hand_each", $n), |b| {
            b.iter_batched(
                || (),
                |()| rt.block_on(hand_each(&mut state, &calls)),
                BatchSize::SmallInput,
            )
        });
    }};
}

fn programs_by_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("program_100_calls");
    group.throughput(Throughput::Elements(100));
    hundred_calls!(group, 10, toolset_10, hand_10::hand_program_10);
    hundred_calls!(group, 100, toolset_100, hand_100::hand_program_100);
    #[cfg(large_sets)]
    hundred_calls!(group, 1000, toolset_1000, hand_1000::hand_program_1000);
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = programs, programs_by_size
}
criterion_main!(benches);
