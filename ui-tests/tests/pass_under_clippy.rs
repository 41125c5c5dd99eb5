//! The `pass/` cases once more, as modules of one test crate: trybuild only runs rustc on
//! them, so this is what lets `cargo clippy --all-targets -- -D warnings` lint the code the
//! macros generate for every accepted form. `cargo test` runs each case's checks too.

#[path = "../pass/argument_forms.rs"]
mod argument_forms;
#[path = "../pass/attribute_keys.rs"]
mod attribute_keys;
#[path = "../pass/documented.rs"]
mod documented;
#[path = "../pass/error_text.rs"]
mod error_text;
#[path = "../pass/escalation.rs"]
mod escalation;
#[path = "../pass/handler_stays_callable.rs"]
mod handler_stays_callable;
#[path = "../pass/labels.rs"]
mod labels;
#[path = "../pass/mcp_headers.rs"]
mod mcp_headers;
#[path = "../pass/propose_only.rs"]
mod propose_only;
#[path = "../pass/return_forms.rs"]
mod return_forms;
#[path = "../pass/sets.rs"]
mod sets;
#[path = "../pass/state_forms.rs"]
mod state_forms;

#[test]
fn argument_forms() {
    argument_forms::main();
}

#[test]
fn attribute_keys() {
    attribute_keys::main();
}

#[test]
fn documented() {
    documented::main();
}

#[test]
fn handler_stays_callable() {
    handler_stays_callable::main();
}

#[test]
fn mcp_headers() {
    mcp_headers::main();
}

#[test]
fn propose_only() {
    propose_only::main();
}

#[test]
fn return_forms() {
    return_forms::main();
}

#[test]
fn sets() {
    sets::main();
}

#[test]
fn escalation() {
    escalation::main();
}

#[test]
fn state_forms() {
    state_forms::main();
}

#[test]
fn error_text() {
    error_text::main();
}

#[test]
fn labels() {
    labels::main();
}
