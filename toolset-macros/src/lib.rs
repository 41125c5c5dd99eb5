//! The procedural macros of the [`toolset`](https://docs.rs/toolset) crate: `#[tool]` on an
//! async handler (or a propose-only args struct), and `toolset!` to assemble a set.
//!
//! Use them through `toolset::{tool, toolset}`; the runtime crate documents them. Each
//! macro is a pipeline, a stage a file: `tool/` and `set/`. Shared: `ctxt` (the error
//! accumulator), `symbol`, `doc`, `case`, `runtime` (the path to the runtime crate).

mod case;
mod ctxt;
mod doc;
mod runtime;
mod set;
mod symbol;
mod tool;

use proc_macro::TokenStream;

/// Declares a tool: on an `async fn` handler, or with `propose_only` on an args struct.
///
/// See the `toolset` crate's documentation for the keys and rules.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Assembles `#[tool]`s into a named set: `toolset! { pub Tools<State> = [a, b]; }`.
///
/// See the `toolset` crate's documentation.
#[proc_macro]
pub fn toolset(input: TokenStream) -> TokenStream {
    set::expand(input.into()).into()
}
