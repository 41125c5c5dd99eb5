//! `toolset!`, one stage a file: `parse` reads the syntax, `valid` checks the rules and
//! builds the `model`, `expand` writes the set, `fallback` is what is emitted on mistakes.

mod expand;
mod fallback;
mod model;
mod parse;
mod valid;

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;

/// Entry point of `toolset!`.
pub fn expand(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<parse::Input>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    input
        .sets
        .iter()
        .map(|decl| {
            let mut cx = Ctxt::new();
            let set = valid::set(decl, &mut cx);
            match cx.finish(set) {
                Ok(set) => expand::set(&set),
                Err(errors) => fallback::emit(decl, &errors),
            }
        })
        .collect()
}
