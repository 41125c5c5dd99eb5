//! Every compile error `#[tool]` and `toolset!` promise (one cause per `fail/` file, its
//! message pinned in the `.stderr` beside it) and every accepted form (`pass/`, compiled
//! under `#![deny(warnings)]`).
//!
//! The `.stderr` files are pinned to the workspace's Rust toolchain (1.95). To regenerate
//! after changing a message: `TRYBUILD=overwrite cargo test -p toolset-ui-tests`, then
//! read every changed `.stderr`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
    cases.pass("pass/*.rs");
}
