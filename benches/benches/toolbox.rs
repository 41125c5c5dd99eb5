//! `toolbox`: gate + apply of one call to a compiled tool beside one call to a runtime
//! tool (`DynamicTool`) with the same schema and the same work, in the same toolbox.
//!
//! The runtime tool's arguments are validated by `jsonschema` and stay JSON; the compiled
//! tool's are deserialized by serde into its typed call. The difference per call is the
//! price of declaring a tool at run time.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolset::prelude::*;
use toolset::{Autonomy, DynamicTool, Tier, ToolCall, ToolContext, tool, toolset};
use toolset_benches::runtime;

/// Look a word up.
#[tool(tier = "read_only")]
pub async fn lookup(
    /// The word.
    word: String,
    /// How many senses, at most.
    limit: Option<u32>,
) -> String {
    format!("{word}:{}", limit.unwrap_or(1))
}

toolset! { pub Words = [lookup]; }

async fn lookup_json(args: Value, _ctx: &ToolContext) -> String {
    let word = args["word"].as_str().unwrap_or_default();
    format!("{word}:{}", args["limit"].as_u64().unwrap_or(1))
}

fn calls(c: &mut Criterion) {
    let rt = runtime();
    let ctx = ToolContext::default();
    let compiled = &Words::specs()[0];
    let toolbox = Words::toolbox()
        .with(
            DynamicTool::new("lookup_runtime", Tier::ReadOnly, compiled.description())
                .input_schema(compiled.input_schema().clone())
                .handler(lookup_json),
        )
        .expect("the compiled tool's schema registers");
    let policy = Words::policy(Autonomy::ReadOnly);
    let arguments = json!({"word": "gate", "limit": 3}).to_string();
    let mut group = c.benchmark_group("toolbox");
    for (label, name) in [("compiled", "lookup"), ("runtime", "lookup_runtime")] {
        let call = ToolCall::new("1", name, arguments.as_str());
        group.bench_function(format!("{label}_gate_apply"), |b| {
            b.iter_batched(
                || vec![call.clone()],
                |calls| {
                    let plan = toolbox
                        .request(&policy)
                        .expect("no unknown runtime name")
                        .gate(calls)
                        .expect("valid");
                    rt.block_on(Words::apply(&mut (), &ctx, plan))
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = calls
}
criterion_main!(benches);
