//! The per-run state is never an argument: a handler borrows it (`&S`, `&mut S`), the
//! model's JSON cannot name it, and an object the model sends under the state parameter's
//! name is refused, never run against. (Taking the state by value, or in an `Arc`, `Rc`,
//! `Box`, `Mutex` or `RwLock`, does not compile: `ui-tests/fail/state_*.rs`.)

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use toolset::prelude::*;
use toolset::report::Outcome;
use toolset::{Autonomy, ToolCall, ToolContext, tool, toolset};

/// The issue tracker the triage tools share. It derives `Deserialize` and `JsonSchema`
/// (it is saved between runs), so the model could describe one, if it were ever asked.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Tracker {
    issues: Vec<String>,
}

/// Count the open issues.
#[tool(tier = "read_only")]
pub async fn count(tracker: &Tracker) -> String {
    tracker.issues.len().to_string()
}

/// File an issue.
#[tool(tier = "reversible")]
pub async fn file(tracker: &mut Tracker, title: String) -> String {
    tracker.issues.push(title);
    tracker.issues.len().to_string()
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [count, file];
}

/// Sum thirty numbers into the tracker: a handler wider than the sixteen parameters the
/// state check once had slots for.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)]
pub async fn sum_thirty(
    tracker: &mut Tracker,
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    a4: u32,
    a5: u32,
    a6: u32,
    a7: u32,
    a8: u32,
    a9: u32,
    a10: u32,
    a11: u32,
    a12: u32,
    a13: u32,
    a14: u32,
    a15: u32,
    a16: u32,
    a17: u32,
    a18: u32,
    a19: u32,
    a20: u32,
    a21: u32,
    a22: u32,
    a23: u32,
    a24: u32,
    a25: u32,
    a26: u32,
    a27: u32,
    a28: u32,
    a29: u32,
) -> String {
    let sum = a0
        + a1
        + a2
        + a3
        + a4
        + a5
        + a6
        + a7
        + a8
        + a9
        + a10
        + a11
        + a12
        + a13
        + a14
        + a15
        + a16
        + a17
        + a18
        + a19
        + a20
        + a21
        + a22
        + a23
        + a24
        + a25
        + a26
        + a27
        + a28
        + a29;
    tracker.issues.push(sum.to_string());
    sum.to_string()
}

toolset! {
    /// A set with a thirty-argument tool and the tracker as its state.
    pub WideTools<Tracker> = [sum_thirty, count];
}

#[test]
fn a_thirty_argument_handler_is_gated_and_applied_with_the_state_borrowed() {
    let arguments: serde_json::Map<String, serde_json::Value> = (0..30)
        .map(|index| (format!("a{index}"), serde_json::Value::from(index)))
        .collect();
    let arguments = serde_json::Value::Object(arguments).to_string();
    let plan = WideTools::gate([call("1", "sum_thirty", &arguments)], Autonomy::Reversible)
        .expect("thirty arguments pass the gate");
    let mut tracker = Tracker::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let report = runtime.block_on(WideTools::apply(
        &mut tracker,
        &ToolContext::default(),
        plan,
    ));
    let total: u32 = (0..30).sum();
    match &report.entries()[0].outcome {
        Some(Outcome::Done(output)) => assert_eq!(output.text_content(), total.to_string()),
        other => panic!("{other:?}"),
    }
    assert_eq!(tracker.issues, [total.to_string()]);
    // The last argument is as required as the first: the schema has all thirty.
    let short = arguments.replace(r#""a29":29"#, r#""b29":29"#);
    assert_ne!(short, arguments);
    assert!(WideTools::gate([call("2", "sum_thirty", &short)], Autonomy::Reversible).is_err());
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

#[test]
fn no_tool_schema_offers_the_state() {
    for spec in TriageTools::specs() {
        let properties = spec.input_schema()["properties"].clone();
        assert!(
            properties.get("tracker").is_none(),
            "`{}` offers the state to the model: {properties}",
            spec.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever issues the model makes up under the state's name, the call is refused with
    /// a message naming the key, the other calls of the program are not lost (the program
    /// is rejected whole, every call's problem reported), and the real state is untouched.
    #[test]
    fn a_model_supplied_state_never_replaces_the_state(
        fake in proptest::collection::vec("[a-z]{1,8}", 0..4),
        title in "[a-z]{1,8}",
    ) {
        let fake = serde_json::json!({ "tracker": { "issues": fake } }).to_string();
        let faked_write = serde_json::json!({ "title": title, "tracker": { "issues": [] } }).to_string();
        let program = vec![
            call("1", "count", &fake),
            call("2", "file", &faked_write),
        ];
        let rejected = TriageTools::gate(program, Autonomy::Reversible).unwrap_err();
        let problems = rejected.problems();
        prop_assert_eq!(problems.len(), 2, "{:?}", problems);
        for problem in problems {
            prop_assert!(problem.message.contains("tracker"), "{}", problem.message);
        }

        // The same calls without the made-up state run against the real one.
        let mut tracker = Tracker { issues: vec!["real".into()] };
        let program = vec![
            call("1", "count", "{}"),
            call("2", "file", &serde_json::json!({ "title": title }).to_string()),
        ];
        let plan = TriageTools::gate(program, Autonomy::Reversible).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let report = runtime.block_on(TriageTools::apply(&mut tracker, &ToolContext::default(), plan));
        let texts: Vec<String> = report
            .entries()
            .iter()
            .map(|entry| match &entry.outcome {
                Some(Outcome::Done(output)) => output.text_content(),
                other => format!("{other:?}"),
            })
            .collect();
        prop_assert_eq!(texts, vec!["1".to_owned(), "2".to_owned()]);
        prop_assert_eq!(tracker.issues, vec!["real".to_owned(), title]);
    }
}
