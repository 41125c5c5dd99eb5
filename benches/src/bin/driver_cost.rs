//! Instructions of one call through the conversation driver (`toolset::Driver`, over a
//! `MemoryStore`) against gate + apply alone, for `valgrind --tool=callgrind`: the
//! driver's own cost per call, with the store's round trips counted apart
//! (`benches/instructions.py` runs it, and once more with callgrind collecting only inside
//! `MemoryStore`'s methods).
//!
//! `driver_cost <workload> <iterations> [<tools>]`, `<tools>` 10 or 100 (the default):
//! - `gate_apply`: `Tools::gate` then `Tools::apply` of one call, as `gate_cost`'s
//!   one-call program;
//! - `gate_apply_answer`: the same, and its results written as the OpenAI Chat message
//!   that answers the model (`consumer::openai_chat::results`), as a host without the
//!   driver writes it;
//! - `turn`: a conversation started, its `next_request`, and the same call answered by
//!   `respond_calls` (gated, journaled, recorded, saved);
//! - `prepare`: the conversation started and its `next_request`, without the call.
//!
//! `turn` minus `prepare` is one call through the driver. Each iteration starts a
//! conversation of its own (a run's history grows with its calls, and one long
//! conversation would measure that instead) and gives the call an id of its own (the
//! journal refuses an id it has seen), in every workload alike.

use std::hint::black_box;
use std::process::ExitCode;
use toolset::consumer::openai_chat;
use toolset::prelude::*;
use toolset::{Autonomy, Driver, MemoryStore, ToolCall, ToolContext};
use toolset_benches::{program, runtime, toolset_10, toolset_100};

/// Runs `$workload` `$iterations` times over the `$toolset` fixture of `$n` tools; `Err`
/// with a message when the workload is unknown or a step failed.
macro_rules! run_size {
    ($toolset:ident, $n:expr, $workload:expr, $iterations:expr) => {{
        let rt = runtime();
        let ctx = ToolContext::default();
        let call = program($n, 1).remove(0);
        let mut state = $toolset::State::default();
        let driver = Driver::new(
            $toolset::Tools::policy(Autonomy::Reversible),
            MemoryStore::new(),
        );
        let mut result: Result<(), String> = Ok(());
        for index in 0..$iterations {
            let call = ToolCall::new(
                format!("call_{index}"),
                call.name.clone(),
                call.arguments.clone(),
            );
            let step: Result<(), String> = match $workload {
                "gate_apply" => match $toolset::Tools::gate([call], Autonomy::Reversible) {
                    Ok(plan) => {
                        black_box(rt.block_on($toolset::Tools::apply(&mut state, &ctx, plan)));
                        Ok(())
                    }
                    Err(_) => Err("the call was rejected".to_owned()),
                },
                "gate_apply_answer" => match $toolset::Tools::gate([call], Autonomy::Reversible) {
                    Ok(plan) => {
                        let report = rt.block_on($toolset::Tools::apply(&mut state, &ctx, plan));
                        black_box(openai_chat::results(&report.results()));
                        Ok(())
                    }
                    Err(_) => Err("the call was rejected".to_owned()),
                },
                "turn" | "prepare" => rt.block_on(async {
                    let mut conversation = driver.start().map_err(|error| error.to_string())?;
                    black_box(
                        conversation
                            .next_request()
                            .map_err(|error| error.to_string())?,
                    );
                    if $workload == "turn" {
                        let turn = conversation
                            .respond_calls(vec![call], &mut state, &ctx)
                            .await
                            .map_err(|error| error.to_string())?;
                        black_box(turn);
                    }
                    Ok(())
                }),
                other => Err(format!(
                    "unknown workload {other:?}: gate_apply, gate_apply_answer, turn or prepare"
                )),
            };
            if step.is_err() {
                result = step;
                break;
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
    let (Some(workload), Ok(iterations), Ok(tools)) = (args.first(), number(1, 0), number(2, 100))
    else {
        eprintln!(
            "usage: driver_cost <gate_apply|gate_apply_answer|turn|prepare> <iterations> [<tools>]"
        );
        return ExitCode::FAILURE;
    };
    let workload = workload.as_str();
    let result = match tools {
        10 => run_size!(toolset_10, 10, workload, iterations),
        100 => run_size!(toolset_100, 100, workload, iterations),
        other => Err(format!("no {other}-tool set here: 10 or 100")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
