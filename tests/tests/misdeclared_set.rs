//! A declaration broken in a way only run time sees (an `example` the gate refuses) is loud
//! where its author looks, at the set's first use: a panic naming the tool and the problem
//! in a debug build, one `tracing::error!` event in a release build; the model's answer
//! ("its declaration is broken") is given either way, from then on.
//!
//! Each test has a set of its own: the first use is once per set and process, and the
//! tests of this file run in one process.

use std::panic::{AssertUnwindSafe, catch_unwind};
use toolset::prelude::*;
use toolset::report::ProblemKind;
use toolset::{Autonomy, ToolCall, tool, toolset};
use toolset_tests::captured::Captured;
use tracing_subscriber::layer::SubscriberExt;

/// Search the notes by free text.
#[tool(tier = "read_only", example = r#"{"qurey": "x"}"#)]
pub async fn search(
    /// Words to look for.
    query: String,
) -> String {
    query
}

/// List the notes.
#[tool(tier = "read_only")]
pub async fn list() -> String {
    String::new()
}

toolset! { pub Typo<()> = [list, search]; }
toolset! { pub TypoInRelease<()> = [list, search]; }
toolset! { pub TypoListed<()> = [list, search]; }
toolset! { pub WellDeclared<()> = [list]; }

fn call(name: &str, arguments: &str) -> ToolCall {
    ToolCall::new("1", name, arguments)
}

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
        })
        .unwrap_or_default()
}

fn says_what_is_broken(text: &str) {
    for what in ["Typo", "`search`", "example", "qurey", "check_declarations"] {
        assert!(text.contains(what), "{what} in\n{text}");
    }
}

#[test]
#[cfg(debug_assertions)]
fn a_misdeclared_set_panics_at_its_first_use_naming_the_tool_and_the_problem() {
    let first = catch_unwind(|| Typo::gate([call("list", "{}")], Autonomy::ReadOnly));
    let payload = first.expect_err("the first use of a misdeclared set panics in a debug build");
    let text = panic_text(&*payload);
    says_what_is_broken(&text);
    assert!(
        !text.contains("`list`"),
        "the good tool is not named: {text}"
    );

    // Once: later uses answer the model, the broken tool refused, the good one served.
    let rejected = Typo::gate([call("search", r#"{"query": "x"}"#)], Autonomy::ReadOnly)
        .expect_err("a misdeclared tool refuses every call");
    assert_eq!(rejected.problems()[0].kind, ProblemKind::Misdeclared);
    assert!(Typo::gate([call("list", "{}")], Autonomy::ReadOnly).is_ok());
}

#[test]
#[cfg(debug_assertions)]
fn rendering_the_list_is_a_first_use_too() {
    let first = catch_unwind(|| {
        toolset::consumer::tool_list::<TypoListed>(
            toolset::consumer::Format::Anthropic,
            toolset::consumer::Order::Declared,
        )
    });
    says_what_is_broken(&panic_text(&*first.expect_err("a panic at the first use")));
}

#[test]
fn check_declarations_reports_without_panicking() {
    // What a test of the author's own calls: the problem as a value, no panic.
    let problems = TypoInRelease::check_declarations().expect_err("misdeclared");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].tool, "search");
}

#[test]
fn a_well_declared_set_is_silent_at_its_first_use() {
    let (events, answer) =
        captured(|| WellDeclared::gate([call("list", "{}")], Autonomy::ReadOnly).map(|_| ()));
    assert!(answer.is_ok());
    assert!(!events.contains("level=ERROR"), "{events}");
}

#[test]
fn in_a_release_build_a_misdeclared_set_is_one_error_event_naming_the_tool_and_the_problem() {
    // Tests build in debug; this is what a release build's first use does.
    let (events, ()) =
        captured(|| toolset::__private::announce_misdeclared::<TypoInRelease>(false));
    let errors: Vec<&str> = events
        .lines()
        .filter(|line| line.contains("level=ERROR"))
        .collect();
    assert_eq!(errors.len(), 1, "{events}");
    says_what_is_broken(errors[0]);
    assert!(
        errors[0].contains("toolset.set=\"TypoInRelease\""),
        "{}",
        errors[0]
    );
}

/// Every event and span a subscriber receives while `run` runs on this thread, one line
/// each (`Captured`), with what `run` returned.
fn captured<R>(run: impl FnOnce() -> R) -> (String, R) {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    let answer = tracing::subscriber::with_default(subscriber, || {
        catch_unwind(AssertUnwindSafe(run)).expect("no panic")
    });
    (captured.text(), answer)
}
