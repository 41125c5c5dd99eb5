//! `compose`: one request's tool list for a 100-tool set with 5 activated deferred tools
//! and 3 history names (2 hidden tools and 1 the set no longer has), per format, against
//! the fixed cached list of the same set:
//!
//! - `request_list` — `Request::new(&policy).format(format).activated(..).history(..).tool_list()`,
//!   what every request of a conversation pays: the layout (one pass over the tools) and
//!   the concatenation of cached per-tool fragments; no schema work;
//! - `cached_list` — `tool_list::<T>(format, Order::Declared)`, the fixed list handed out
//!   as the same `&'static str` (the floor: nothing is composed).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolset::consumer::{Format, Order, tool_list};
use toolset::prelude::ToolSet;
use toolset::request::{Activations, Request};
use toolset::set::ToolName;
use toolset::{Autonomy, Policy};
use toolset_benches::toolset_100;

type Tools = toolset_100::Tools;
type Name = <Tools as ToolSet>::Name;

fn compose(c: &mut Criterion) {
    let all = <Name as ToolName>::ALL;
    let mut policy = Policy::<Tools>::new(Autonomy::Reversible);
    let mut activations = Activations::new();
    for &tool in &all[10..15] {
        policy = policy.defer(tool);
        activations.activate(tool.as_str());
    }
    for &tool in &all[95..97] {
        policy = policy.hide(tool);
    }
    let history = [all[95].as_str(), all[96].as_str(), "retired_tool"];
    for format in Format::ALL {
        let mut group = c.benchmark_group(format!("compose/{format}"));
        let request = || {
            Request::new(&policy)
                .format(format)
                .activated(&activations)
                .history(history)
        };
        // Fill the fragment cache, and check what is measured is the list meant.
        let list = request().tool_list();
        assert!(list.contains("retired_tool") && list.contains(all[12].as_str()));
        group.bench_function(BenchmarkId::new("request_list", 100), |b| {
            b.iter(|| request().tool_list())
        });
        group.bench_function(BenchmarkId::new("cached_list", 100), |b| {
            b.iter(|| tool_list::<Tools>(black_box(format), Order::Declared))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = compose
}
criterion_main!(benches);
