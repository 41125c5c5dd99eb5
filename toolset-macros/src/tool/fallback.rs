//! What `#[tool]` emits when the input has mistakes: the errors, the user's item as it
//! compiles on its own (so IDEs and the rest of the crate keep working), and placeholder
//! impls so that a `toolset!` listing the tool does not add a cascade of secondary errors
//! on top of the real ones.

use super::item::UserItem;
use crate::runtime::Runtime;
use proc_macro2::TokenStream;
use quote::quote;

/// `errors`, `item`, and the placeholders a set needs to name the tool.
pub fn emit(item: &UserItem, errors: &syn::Error, rt: &Runtime) -> TokenStream {
    let compile_errors = errors.to_compile_error();
    let placeholder = match item {
        // A method sits in an `impl` block, where a struct cannot be declared; and no set
        // can list it anyway.
        UserItem::Fn(func) if func.sig.receiver().is_some() => quote!(),
        UserItem::Fn(func) => {
            let ident = &func.sig.ident;
            let vis = &func.vis;
            let impls = placeholder_impls(ident, rt);
            quote! {
                #[allow(non_camel_case_types, dead_code, missing_docs)]
                #vis struct #ident {}
                #impls
            }
        }
        UserItem::Struct(item) if item.generics.params.is_empty() => {
            placeholder_impls(&item.ident, rt)
        }
        UserItem::Struct(_) | UserItem::Other(_) => quote!(),
    };
    quote! {
        #compile_errors
        #item
        #placeholder
    }
}

/// `errors` and the input as it came, when it is not even an item.
pub fn unparsed(input: TokenStream, errors: &syn::Error) -> TokenStream {
    let compile_errors = errors.to_compile_error();
    quote!(#compile_errors #input)
}

fn placeholder_impls(ident: &syn::Ident, rt: &Runtime) -> TokenStream {
    let no_state_sent = super::expand::no_state_sent(ident, rt);
    quote! {
        const _: () = {
            impl #rt::set::Tool for #ident {
                type Args = ();
                type Sent = ();
                const NAME: &'static str = stringify!(#ident);
                const META: #rt::__private::ToolMeta = #rt::__private::PLACEHOLDER_META;
            }
            impl<S> #rt::set::ToolHandler<S> for #ident {}
            #no_state_sent
        };
    }
}
