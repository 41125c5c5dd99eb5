//! `#[tool]`, one stage a file: `attr` reads the attribute's syntax, `item` takes the
//! user's item apart and puts it back, `valid` checks every rule and builds the `model`,
//! `expand` writes the code, `fallback` is what is emitted when the input has mistakes.

mod attr;
mod expand;
mod fallback;
mod item;
mod model;
mod valid;

pub use attr::{did_you_mean, parse_crate};
pub use valid::tidy;

use crate::ctxt::Ctxt;
use crate::runtime::Runtime;
use attr::ToolAttr;
use item::UserItem;
use proc_macro2::TokenStream;

/// Entry point of `#[tool]`.
pub fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let attr = ToolAttr::parse(args, &mut cx);
    // The placeholders beside errors name the runtime as the tool would, when they can.
    let runtime = attr
        .krate
        .as_ref()
        .and_then(|lit| Runtime::from_lit(lit).ok())
        .unwrap_or_default();
    let item: syn::Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            cx.push(error);
            return match cx.finish(None::<()>) {
                Err(errors) => fallback::unparsed(input, &errors),
                Ok(()) => input,
            };
        }
    };
    let (mut item, params) = UserItem::from_syn(item);
    let tool = valid::tool(&attr, &item, &params, &mut cx);
    item.document_with(attr.description.as_ref());
    item.deny_unknown_fields();
    match cx.finish(tool) {
        Ok(tool) => expand::tool(&item, &tool),
        Err(errors) => fallback::emit(&item, &errors, &runtime),
    }
}
