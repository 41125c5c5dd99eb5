//! Instructions per call of the gate, of gate + apply, and of the hand-written floor, on a
//! program of 1 or more calls over the 10-, 100- or 1000-tool set, for
//! `valgrind --tool=callgrind` (instruction counts do not depend on the load of a shared
//! machine). Run it twice with different iteration counts: the difference divided by the
//! extra calls is one call's cost.
//!
//! ```sh
//! cargo build --release -p toolset-benches --bin gate_cost
//! for n in 10 110; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/gate_cost gate_apply $n 100 100 2>&1 | grep 'refs'
//! done   # (refs at 110 - refs at 10) / (100 iterations x 100 calls)
//! ```
//!
//! `gate_cost <workload> <iterations> [<tools> [<calls>]]`:
//! `<workload>` is `gate` (`Tools::gate` alone), `gate_apply` (`gate` then `apply`),
//! `hand` (a `match` on the name and `serde_json::from_str` for every call, then the
//! handlers: the floor that checks the whole program first) or `hand_each` (the same
//! `match` and `from_str`, each call run as soon as it is parsed: the bare floor, which
//! checks nothing across calls); `<tools>` is the set's size, 10, 100 (the default) or 1000 (only
//! built with `TOOLSET_BENCH_LARGE=1`); `<calls>` the program's length (default 100).
//! Every workload clones the program's calls once per iteration (the gate takes them by
//! value), so the clone is in the floor too.

use std::hint::black_box;
use std::process::ExitCode;
use toolset::prelude::*;
use toolset::{Autonomy, ToolContext};
use toolset_benches::{hand_10, hand_100, program, runtime, toolset_10, toolset_100};

#[cfg(large_sets)]
use toolset_benches::hand_1000;
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

/// Runs `$workload` `$iterations` times on a program of `$len` calls over one set size
/// (the `toolset_*` and `hand_*` fixtures of that size); `Err` with a message when the
/// workload is unknown or the program was rejected.
macro_rules! run_size {
    ($toolset:ident, $hand:ident, $hand_program:ident, $n:expr, $workload:expr, $iterations:expr, $len:expr) => {{
        let rt = runtime();
        let ctx = ToolContext::default();
        let calls = program($n, $len);
        let mut state = $toolset::State::default();
        let mut hand_state = $hand::State::default();
        let mut result = Ok(());
        for _ in 0..$iterations {
            let calls = calls.clone();
            match $workload {
                "gate" => {
                    let plan = $toolset::Tools::gate(calls, Autonomy::Reversible);
                    black_box(plan.is_ok());
                }
                "gate_apply" => {
                    let Ok(plan) = $toolset::Tools::gate(calls, Autonomy::Reversible) else {
                        result = Err("the generated program was rejected".to_owned());
                        break;
                    };
                    black_box(rt.block_on($toolset::Tools::apply(&mut state, &ctx, plan)));
                }
                "hand" => {
                    // As the `program` benchmark's floor: parse every call, then run them all.
                    let run = async {
                        let mut parsed = Vec::with_capacity(calls.len());
                        for call in &calls {
                            parsed.push(
                                $hand::$hand_program::parse(&call.name, &call.arguments.text())
                                    .ok()?,
                            );
                        }
                        let mut results = Vec::with_capacity(parsed.len());
                        for typed in parsed {
                            results.push($hand::$hand_program::run(&mut hand_state, typed).await);
                        }
                        Some(results)
                    };
                    if black_box(rt.block_on(run)).is_none() {
                        result = Err("the generated program was rejected".to_owned());
                        break;
                    }
                }
                "hand_each" => {
                    // The bare floor: parse a call, run it, next call.
                    let run = async {
                        let mut results = Vec::with_capacity(calls.len());
                        for call in &calls {
                            let typed =
                                $hand::$hand_program::parse(&call.name, &call.arguments.text())
                                    .ok()?;
                            results.push($hand::$hand_program::run(&mut hand_state, typed).await);
                        }
                        Some(results)
                    };
                    if black_box(rt.block_on(run)).is_none() {
                        result = Err("the generated program was rejected".to_owned());
                        break;
                    }
                }
                other => {
                    result = Err(format!(
                        "unknown workload {other:?}: gate, gate_apply, hand or hand_each"
                    ));
                    break;
                }
            }
        }
        result
    }};
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |index: usize, default: usize| {
        args.get(index)
            .map_or(Ok(default), |text| text.parse::<usize>())
    };
    let (Some(workload), Ok(iterations), Ok(tools), Ok(len)) =
        (args.first(), number(1, 0), number(2, 100), number(3, 100))
    else {
        eprintln!(
            "usage: gate_cost <gate|gate_apply|hand|hand_each> <iterations> [<tools> [<calls>]]"
        );
        return ExitCode::FAILURE;
    };
    let workload = workload.as_str();
    let result = match tools {
        10 => run_size!(
            toolset_10,
            hand_10,
            hand_program_10,
            10,
            workload,
            iterations,
            len
        ),
        100 => run_size!(
            toolset_100,
            hand_100,
            hand_program_100,
            100,
            workload,
            iterations,
            len
        ),
        #[cfg(large_sets)]
        1000 => run_size!(
            toolset_1000,
            hand_1000,
            hand_program_1000,
            1000,
            workload,
            iterations,
            len
        ),
        other => Err(format!(
            "no {other}-tool set: 10, 100, or 1000 when built with TOOLSET_BENCH_LARGE=1"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
