//! The syntax of `toolset!`: one or more `#[attrs] vis Name<State> = [entry, ...];`, where
//! `#[toolset(crate = "...")]` among the attributes is the macro's own, not the set type's.
//! What the entries mean (distinct, tools, one state) is `valid`'s and the compiler's job.

use crate::ctxt::Ctxt;
use crate::symbol;
use crate::tool::{did_you_mean, parse_crate};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitStr, Path, Token, Type, Visibility, bracketed};

/// The whole input: every set declared.
pub struct Input {
    pub sets: Vec<SetDecl>,
}

/// One `Name<State> = [...]` declaration, as written.
pub struct SetDecl {
    /// The set type's attributes (its doc comment, derives).
    pub attrs: Vec<Attribute>,
    /// `#[toolset(...)]`: the macro's keys for this set, read by [`SetDecl::crate_key`].
    pub options: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub state: Option<Type>,
    pub bracket: syn::token::Bracket,
    pub entries: Punctuated<Path, Token![,]>,
}

impl Parse for SetDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (options, attrs) = input
            .call(Attribute::parse_outer)?
            .into_iter()
            .partition(|attr| attr.path().is_ident(symbol::TOOLSET));
        let vis: Visibility = input.parse()?;
        let ident: Ident = input.parse()?;
        let state = if input.peek(Token![<]) {
            input.parse::<Token![<]>()?;
            let state: Type = input.parse()?;
            input.parse::<Token![>]>()?;
            Some(state)
        } else {
            None
        };
        if !input.peek(Token![=]) {
            return Err(input.error(format!(
                "expected `=` and a list of tools: `{ident}<State> = [tool_a, tool_b];`"
            )));
        }
        input.parse::<Token![=]>()?;
        let content;
        let bracket = bracketed!(content in input);
        let entries = content.parse_terminated(Path::parse_mod_style, Token![,])?;
        Ok(SetDecl {
            attrs,
            options,
            vis,
            ident,
            state,
            bracket,
            entries,
        })
    }
}

impl SetDecl {
    /// The `crate = "..."` of the set's `#[toolset(...)]`, each mistake recorded in `cx`.
    pub fn crate_key(&self, cx: &mut Ctxt) -> Option<LitStr> {
        let mut krate: Option<LitStr> = None;
        for option in &self.options {
            let list = match &option.meta {
                syn::Meta::List(list) => list,
                other => {
                    cx.error_at(
                        other,
                        format!(
                            "`#[toolset]` on a set takes its keys in parentheses: write `#[toolset({})]`",
                            crate::runtime::FORM
                        ),
                    );
                    continue;
                }
            };
            let parser = |input: ParseStream| {
                while !input.is_empty() {
                    let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
                    if key == symbol::CRATE {
                        let value = parse_crate(input, &key, cx)?;
                        if krate.is_some() {
                            cx.error_at(&key, "`crate` is given twice; keep one");
                        } else {
                            krate = value;
                        }
                    } else {
                        let name = key.to_string();
                        return Err(syn::Error::new(
                            key.span(),
                            format!(
                                "unknown key `{name}` in #[toolset]{}; expected `crate`, as in `#[toolset({})]`",
                                did_you_mean(&name, symbol::SET_KEYS),
                                crate::runtime::FORM
                            ),
                        ));
                    }
                    if input.is_empty() {
                        break;
                    }
                    input.parse::<Token![,]>()?;
                }
                Ok(())
            };
            if let Err(error) = parser.parse2(list.tokens.clone()) {
                cx.push(error);
            }
        }
        krate
    }
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut sets = Vec::new();
        while !input.is_empty() {
            sets.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![;]>()?;
        }
        if sets.is_empty() {
            return Err(input
                .error("declare a set: `toolset! { pub MyTools<MyState> = [tool_a, tool_b]; }`"));
        }
        Ok(Input { sets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn crate_key(input: proc_macro2::TokenStream) -> (Option<String>, usize, usize) {
        let decl: SetDecl = syn::parse2(input).expect("the declaration parses");
        let mut cx = Ctxt::new();
        let krate = decl.crate_key(&mut cx).map(|lit| lit.value());
        let errors = cx
            .finish(Some(()))
            .err()
            .map_or(0, |e| e.into_iter().count());
        (krate, decl.attrs.len(), errors)
    }

    #[test]
    fn the_crate_key_is_read_and_kept_off_the_set_type() {
        let (krate, attrs, errors) = crate_key(quote!(
            /// The tools.
            #[toolset(crate = "facade")]
            pub Tools<State> = [a]
        ));
        assert_eq!((krate.as_deref(), attrs, errors), (Some("facade"), 1, 0));
    }

    #[test]
    fn a_repeated_unknown_or_bare_key_is_an_error() {
        for input in [
            quote!(
                #[toolset(crate = "a", crate = "b")]
                Tools = [a]
            ),
            quote!(
                #[toolset(crate = "a")]
                #[toolset(crate = "b")]
                Tools = [a]
            ),
            quote!(
                #[toolset(crates = "a")]
                Tools = [a]
            ),
            quote!(
                #[toolset(crate = a)]
                Tools = [a]
            ),
            quote!(
                #[toolset]
                Tools = [a]
            ),
        ] {
            assert_eq!(crate_key(input.clone()).2, 1, "{input}");
        }
    }
}
