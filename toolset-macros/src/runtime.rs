//! The path generated code names the runtime crate by: `::toolset`, or what a
//! `crate = "..."` key says, for a crate that re-exports toolset under another path (as
//! serde's `#[serde(crate = "...")]`). Both macros read the key here, the same way.
//!
//! A tool and the set listing it may name the runtime by different paths (a set in one
//! crate, its tools in another that re-exports toolset): each path is resolved where its
//! macro is written, and any path that compiles names the one toolset crate, so the traits
//! a tool implements are the ones its set names. A path that reaches nothing is rustc's
//! unresolved-path error, at the key's value (and at the types the code spanned there
//! names it beside: `ui-tests/fail/crate_naming_no_crate.rs`).

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::LitStr;

/// What a `crate = "..."` value looks like, for the messages.
pub const FORM: &str = "crate = \"my_facade::toolset\"";

/// The runtime crate's path, as generated code writes it before `::set::Tool` and the like.
#[derive(Clone)]
pub struct Runtime(TokenStream);

impl Default for Runtime {
    fn default() -> Self {
        Runtime(quote!(::toolset))
    }
}

impl Runtime {
    /// The path a `crate = "..."` literal holds, its tokens spanned at the literal, so a
    /// path that does not resolve is reported there.
    pub fn from_lit(lit: &LitStr) -> syn::Result<Runtime> {
        let path = lit.parse_with(syn::Path::parse_mod_style).map_err(|_| {
            syn::Error::new(
                lit.span(),
                format!(
                    "`crate` takes the path at which your crate reaches toolset, without generics: \
                     write `{FORM}`, or leave the key out for `::toolset`"
                ),
            )
        })?;
        Ok(Runtime(path.into_token_stream()))
    }

    /// The path `crate = "..."` gives, the default without one; `None` when it is no
    /// path, the reason recorded in `cx`.
    pub fn read(lit: Option<&LitStr>, cx: &mut Ctxt) -> Option<Runtime> {
        let Some(lit) = lit else {
            return Some(Runtime::default());
        };
        Runtime::from_lit(lit).map_err(|error| cx.push(error)).ok()
    }

    /// The path respanned at `span`, for code spanned at what the user wrote (an entry, a
    /// type), so an error there underlines that and not the line of the `crate` key too.
    pub fn at(&self, span: Span) -> TokenStream {
        self.0
            .clone()
            .into_iter()
            .map(|mut token| {
                token.set_span(span);
                token
            })
            .collect()
    }

    /// `<runtime>::<rest>` as text, for the paths other derives read from a string
    /// (`#[serde(crate = "...")]`, `schema_with = "..."`).
    pub fn within(&self, rest: &str) -> String {
        format!("{}::{rest}", self.0).replace(' ', "")
    }
}

impl ToTokens for Runtime {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(text: &str) -> syn::Result<Runtime> {
        Runtime::from_lit(&LitStr::new(text, Span::call_site()))
    }

    #[test]
    fn a_path_is_read_with_or_without_a_leading_colon_pair() {
        for text in [
            "facade",
            "my_facade::toolset",
            "::facade::toolset",
            "crate::rt",
        ] {
            assert!(runtime(text).is_ok(), "{text}");
        }
        let within = |text| runtime(text).map(|rt| rt.within("__private::serde")).ok();
        assert_eq!(
            within("my_facade :: toolset"),
            Some("my_facade::toolset::__private::serde".into())
        );
        assert_eq!(
            Runtime::default().within("__private::serde"),
            "::toolset::__private::serde"
        );
    }

    #[test]
    fn what_is_no_path_is_refused() {
        for text in [
            "",
            "facade::",
            "facade::<T>",
            "facade toolset",
            "\"x\"",
            "1",
        ] {
            assert!(runtime(text).is_err(), "{text:?}");
        }
    }
}
