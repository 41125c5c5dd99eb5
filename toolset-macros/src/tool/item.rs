//! The user's item as `#[tool]` re-emits it, whether or not the input was valid: the
//! attributes the macro consumes taken off the parameters (`#[args]`, `#[mcp_header]`, and the docs,
//! `#[serde]` and `#[schemars]` that belong on the generated field), and what the macro adds
//! (the `description` as the doc comment, `deny_unknown_fields` on a propose-only struct).

use crate::doc::{doc_text, is_doc};
use crate::symbol;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Attribute, FnArg, Item, ItemFn, ItemStruct, LitStr, Meta, Path, Token};

/// The item, as it compiles on its own.
pub enum UserItem {
    Fn(ItemFn),
    Struct(ItemStruct),
    Other(Item),
}

/// What was taken off one handler parameter.
#[derive(Default)]
pub struct ParamAttrs {
    /// It was marked `#[args]`: the whole-object form.
    pub whole_args: bool,
    /// Each `#[mcp_header("...")]` it carried (more than one is refused in `valid`).
    pub mcp_header: Vec<Attribute>,
    /// Docs, `#[serde]`, `#[schemars]`: for the generated field.
    pub field: Vec<Attribute>,
}

impl UserItem {
    /// The item with the parameter attributes taken off, and what each parameter carried
    /// (one entry per parameter, receivers included).
    pub fn from_syn(item: Item) -> (UserItem, Vec<ParamAttrs>) {
        match item {
            Item::Fn(mut func) => {
                let params = func.sig.inputs.iter_mut().map(take_param_attrs).collect();
                (UserItem::Fn(func), params)
            }
            Item::Struct(item) => (UserItem::Struct(item), Vec::new()),
            other => (UserItem::Other(other), Vec::new()),
        }
    }

    /// An item described only by `description = "..."` gets it as its doc comment too, so
    /// rustdoc and `missing_docs` see what the model sees.
    pub fn document_with(&mut self, description: Option<&LitStr>) {
        let attrs = match self {
            UserItem::Fn(func) => &mut func.attrs,
            UserItem::Struct(item) => &mut item.attrs,
            UserItem::Other(_) => return,
        };
        if let Some(description) = description
            && doc_text(attrs).is_none()
        {
            attrs.push(syn::parse_quote!(#[doc = #description]));
        }
    }

    /// A propose-only struct rejects unknown argument keys, as generated argument structs
    /// do. Only when it derives `Deserialize`: without serde's derive `#[serde]` would not
    /// resolve, and the missing derive is the error to report (the `Tool` impl does).
    pub fn deny_unknown_fields(&mut self) {
        let UserItem::Struct(item) = self else {
            return;
        };
        let derives_deserialize = item
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident(symbol::DERIVE))
            .filter_map(|attr| {
                attr.parse_args_with(Punctuated::<Path, Token![,]>::parse_terminated)
                    .ok()
            })
            .flatten()
            .any(|path| {
                path.segments
                    .last()
                    .is_some_and(|last| last.ident == symbol::DESERIALIZE)
            });
        let already_denied = item
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident(symbol::SERDE))
            .filter_map(|attr| {
                attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                    .ok()
            })
            .flatten()
            .any(|meta| meta.path().is_ident(symbol::DENY_UNKNOWN_FIELDS));
        if derives_deserialize && !already_denied {
            item.attrs
                .push(syn::parse_quote!(#[serde(deny_unknown_fields)]));
        }
    }
}

impl ToTokens for UserItem {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        match self {
            UserItem::Fn(item) => item.to_tokens(tokens),
            UserItem::Struct(item) => item.to_tokens(tokens),
            UserItem::Other(item) => item.to_tokens(tokens),
        }
    }
}

fn take_param_attrs(input: &mut FnArg) -> ParamAttrs {
    let FnArg::Typed(typed) = input else {
        return ParamAttrs::default();
    };
    let before = typed.attrs.len();
    typed
        .attrs
        .retain(|attr| !attr.path().is_ident(symbol::ARGS));
    let whole_args = typed.attrs.len() != before;
    let (mcp_header, rest): (Vec<Attribute>, Vec<Attribute>) = typed
        .attrs
        .drain(..)
        .partition(|attr| attr.path().is_ident(symbol::MCP_HEADER));
    typed.attrs = rest;
    let (field, keep): (Vec<Attribute>, Vec<Attribute>) = typed.attrs.drain(..).partition(|attr| {
        is_doc(attr)
            || attr.path().is_ident(symbol::SERDE)
            || attr.path().is_ident(symbol::SCHEMARS)
    });
    typed.attrs = keep;
    ParamAttrs {
        whole_args,
        mcp_header,
        field,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn struct_item(tokens: proc_macro2::TokenStream) -> UserItem {
        UserItem::from_syn(syn::parse2(tokens).expect("a struct")).0
    }

    fn denies(item: &UserItem) -> usize {
        let UserItem::Struct(item) = item else {
            return 0;
        };
        item.attrs
            .iter()
            .filter(|attr| {
                attr.to_token_stream()
                    .to_string()
                    .contains("deny_unknown_fields")
            })
            .count()
    }

    #[test]
    fn a_deserializable_struct_is_made_to_deny_unknown_fields() {
        for derive in [
            quote!(#[derive(serde::Deserialize, schemars::JsonSchema)]),
            quote!(#[derive(Deserialize)]),
            quote!(#[derive(Debug)] #[derive(::serde::Deserialize)]),
        ] {
            let mut item = struct_item(quote!(#derive struct S { a: u8 }));
            item.deny_unknown_fields();
            assert_eq!(denies(&item), 1, "{derive}");
        }
    }

    #[test]
    fn a_struct_without_the_derive_gets_no_serde_attribute() {
        // `DeserializeOwned` in a path name, or a derive of another name, is not the derive.
        let mut item = struct_item(quote!(
            #[derive(DeserializeLike, JsonSchema)]
            struct S;
        ));
        item.deny_unknown_fields();
        assert_eq!(denies(&item), 0);
    }

    #[test]
    fn a_struct_already_denying_unknown_fields_is_left_alone() {
        let mut item = struct_item(quote!(
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase", deny_unknown_fields)]
            struct S;
        ));
        item.deny_unknown_fields();
        assert_eq!(denies(&item), 1);
    }

    #[test]
    fn parameter_attributes_move_off_the_handler() {
        let (item, params) = UserItem::from_syn(syn::parse_quote! {
            async fn f(#[args] a: A, /// Doc.
                #[serde(default)] #[allow(unused)] #[mcp_header("B")] b: u8) {}
        });
        assert!(params[0].whole_args && params[0].field.is_empty());
        assert_eq!(params[1].field.len(), 2);
        assert_eq!(params[1].mcp_header.len(), 1);
        let emitted = item.to_token_stream().to_string();
        assert!(
            !emitted.contains("args")
                && !emitted.contains("serde")
                && !emitted.contains("mcp_header"),
            "{emitted}"
        );
        assert!(
            emitted.contains("allow"),
            "other attributes stay: {emitted}"
        );
    }
}
