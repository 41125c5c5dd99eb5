//! Tools and a set declared in a crate that names toolset only `facade` (its dependency
//! renamed in Cargo.toml), as a crate using toolset through a re-export does: the keys
//! `crate = "..."` say where the runtime is. A tool and its set may name it by different
//! paths, as long as each path reaches toolset where it is written.

use facade::{ToolError, tool, toolset};

/// The runtime re-exported under a path of two segments, as `my_facade::toolset` is.
pub mod reexport {
    pub use facade as toolset;
}

/// A running total and what changed it.
#[derive(Default)]
pub struct Counter {
    /// The sum of what was added.
    pub total: i64,
    /// The reason given for each addition.
    pub log: Vec<String>,
}

/// Read the running total.
#[tool(crate = "facade", tier = "read_only")]
pub async fn total(counter: &Counter) -> String {
    counter.total.to_string()
}

/// Add to the running total.
#[tool(tier = "reversible", crate = "crate::reexport::toolset")]
pub async fn add(
    counter: &mut Counter,
    /// How much to add.
    amount: i64,
    /// Why, for the log.
    reason: Option<String>,
) -> Result<String, ToolError> {
    counter.total = counter
        .total
        .checked_add(amount)
        .ok_or_else(|| ToolError::failed("the total would overflow"))?;
    counter.log.push(reason.unwrap_or_default());
    Ok(format!("the total is {}", counter.total))
}

toolset! {
    /// The counter's tools.
    #[toolset(crate = "facade")]
    pub CounterTools<Counter> = [total, add];
}

#[cfg(test)]
mod tests {
    use super::*;
    use facade::prelude::*;
    use facade::{Autonomy, ToolCall, ToolContext};

    #[tokio::test]
    async fn a_set_declared_through_a_renamed_crate_gates_and_applies_its_calls() {
        let calls = vec![ToolCall::new(
            "c1",
            "add",
            r#"{"amount": 5, "reason": "a test"}"#,
        )];
        let plan = CounterTools::gate(calls, Autonomy::Reversible).expect("the call passes");
        let mut counter = Counter::default();
        let report = CounterTools::apply(&mut counter, &ToolContext::default(), plan).await;
        assert!(
            report.entries()[0]
                .outcome
                .as_ref()
                .is_some_and(|outcome| outcome.is_done())
        );
        assert_eq!(
            (counter.total, counter.log.as_slice()),
            (5, &["a test".to_string()][..])
        );
    }

    #[test]
    fn the_gate_refuses_what_the_arguments_do_not_allow_and_withholds_above_the_autonomy() {
        let calls = vec![ToolCall::new("c1", "add", r#"{"amount": "five"}"#)];
        assert!(CounterTools::gate(calls, Autonomy::Reversible).is_err());
        let calls = vec![ToolCall::new("c1", "add", r#"{"amount": 1}"#)];
        let plan = CounterTools::gate(calls, Autonomy::ReadOnly).expect("the call is valid");
        assert_eq!(plan.proposals().len(), 1);
    }

    #[test]
    fn the_specs_are_the_tools_in_declared_order() {
        let names: Vec<&str> = CounterTools::specs()
            .iter()
            .map(|spec| spec.name())
            .collect();
        assert_eq!(names, ["total", "add"]);
    }
}
