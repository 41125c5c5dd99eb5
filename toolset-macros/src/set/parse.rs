//! The syntax of `toolset!`: one or more `#[attrs] vis Name<State> = [entry, ...];`.
//! What the entries mean (distinct, tools, one state) is `valid`'s and the compiler's job.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, Path, Token, Type, Visibility, bracketed};

/// The whole input: every set declared.
pub struct Input {
    pub sets: Vec<SetDecl>,
}

/// One `Name<State> = [...]` declaration, as written.
pub struct SetDecl {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub state: Option<Type>,
    pub bracket: syn::token::Bracket,
    pub entries: Punctuated<Path, Token![,]>,
}

impl Parse for SetDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
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
            vis,
            ident,
            state,
            bracket,
            entries,
        })
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
