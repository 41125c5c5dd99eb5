//! Instructions per call of the gate, of gate + apply, and of the hand-written floor, on a
//! 100-call program over the 100-tool set, for `valgrind --tool=callgrind` (instruction
//! counts do not depend on the load of a shared machine). Run it twice with different
//! iteration counts: the difference divided by the extra calls is one call's cost.
//!
//! ```sh
//! cargo build --release -p toolset-benches --bin gate_cost
//! for n in 10 110; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/gate_cost gate $n 2>&1 | grep 'refs'
//! done   # (refs at 110 - refs at 10) / (100 iterations x 100 calls)
//! ```
//!
//! `<workload>`: `gate` (`Tools::gate` alone), `gate_apply` (`gate` then `apply`) or
//! `hand` (a `match` on the name and `serde_json::from_str`, then the handler).

use std::hint::black_box;
use std::process::ExitCode;
use toolset::{Autonomy, ToolContext};
use toolset_benches::{fixture, program, runtime};

fixture!(toolset_100);
fixture!(hand_100 {
    toolset_benches::fixture!(hand_program_100);
});

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(workload), Some(Ok(iterations))) =
        (args.first(), args.get(1).map(|n| n.parse::<usize>()))
    else {
        eprintln!("usage: gate_cost <gate|gate_apply|hand> <iterations>");
        return ExitCode::FAILURE;
    };
    let rt = runtime();
    let ctx = ToolContext::default();
    let calls = program(100, 100);
    let mut state = toolset_100::State::default();
    let mut hand_state = hand_100::State::default();
    for _ in 0..iterations {
        let calls = calls.clone();
        match workload.as_str() {
            "gate" => {
                let plan = toolset_100::Tools::gate(calls, Autonomy::Reversible);
                black_box(plan.is_ok());
            }
            "gate_apply" => {
                let Ok(plan) = toolset_100::Tools::gate(calls, Autonomy::Reversible) else {
                    eprintln!("the generated program was rejected");
                    return ExitCode::FAILURE;
                };
                black_box(rt.block_on(toolset_100::Tools::apply(&mut state, &ctx, plan)));
            }
            "hand" => {
                // As the `program` benchmark's floor: parse every call, then run them all.
                let run = async {
                    let mut parsed = Vec::with_capacity(calls.len());
                    for call in &calls {
                        parsed.push(
                            hand_100::hand_program_100::parse(&call.name, &call.arguments).ok()?,
                        );
                    }
                    let mut results = Vec::with_capacity(parsed.len());
                    for typed in parsed {
                        results.push(hand_100::hand_program_100::run(&mut hand_state, typed).await);
                    }
                    Some(results)
                };
                if black_box(rt.block_on(run)).is_none() {
                    eprintln!("the generated program was rejected");
                    return ExitCode::FAILURE;
                }
            }
            other => {
                eprintln!("unknown workload {other:?}: gate, gate_apply or hand");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
