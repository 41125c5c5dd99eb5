//! trybuild cases live in `fail/` (one mistake each, its message pinned in the `.stderr`
//! beside it) and `pass/` (every accepted form, under `#![deny(warnings)]`); `tests/ui.rs`
//! runs them. `tests/pass_under_clippy.rs` compiles the `pass/` cases once more as modules,
//! so that `cargo clippy --all-targets` lints the code the macros generate for them.
