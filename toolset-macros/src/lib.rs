//! The procedural macros of the [`toolset`](https://docs.rs/toolset) crate: `#[tool]` on an
//! async handler (or a propose-only args struct), and `toolset!` to assemble a set.
//!
//! Use them through `toolset::{tool, toolset}`; the runtime crate documents them.
//!
//! The pipeline, one file a step: `attr` reads `#[tool(...)]`, `ast` turns the item into a
//! typed model and checks it, `expand` writes the code, `fallback` is what is emitted when
//! the input has mistakes. `set` does the same for `toolset!`.

mod ast;
mod attr;
mod doc;
mod errors;
mod expand;
mod fallback;
mod set;
mod symbol;

use proc_macro::TokenStream;

/// Declares a tool: on an `async fn` handler, or with `propose_only` on an args struct.
///
/// See the `toolset` crate's documentation for the keys and rules.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// Assembles `#[tool]`s into a named set: `toolset! { pub Tools<State> = [a, b]; }`.
///
/// See the `toolset` crate's documentation.
#[proc_macro]
pub fn toolset(input: TokenStream) -> TokenStream {
    set::expand(input.into()).into()
}
