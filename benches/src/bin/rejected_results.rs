//! How long `Rejected::results` takes for a rejected program of N invalid calls, for N
//! from 7 500 to 60 000: a linear lookup doubles with N, a quadratic one quadruples.
//!
//! `cargo run --release -p toolset-benches --bin rejected_results`; each size is timed
//! once (the quadratic version takes seconds, too long for criterion's samples).

use std::time::Instant;
use toolset::prelude::*;
use toolset::{Autonomy, ToolCall};
use toolset_benches::{generate, toolset_100};

fn main() {
    for len in [7_500_usize, 15_000, 30_000, 60_000] {
        // Every call has an argument of the wrong type, so every call has a problem.
        let calls: Vec<ToolCall> = (0..len)
            .map(|i| {
                ToolCall::new(
                    format!("call_{i}"),
                    generate::tool_name(i % 100),
                    r#"{"id":"not a number","text":"x"}"#,
                )
            })
            .collect();
        let rejected = match toolset_100::Tools::gate(calls, Autonomy::Reversible) {
            Ok(_) => unreachable!("every call is invalid"),
            Err(rejected) => rejected,
        };
        let started = Instant::now();
        let results = rejected.results();
        let took = started.elapsed();
        assert_eq!(results.len(), len);
        println!(
            "{len:>6} invalid calls: results() in {:>9.3} ms ({:.0} ns per call)",
            took.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e9 / len as f64
        );
    }
}
