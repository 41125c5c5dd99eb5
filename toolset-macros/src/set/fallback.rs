//! What `toolset!` emits for a set with mistakes: the errors, and the set type itself, so
//! code naming the set reports no secondary errors.

use super::parse::SetDecl;
use proc_macro2::TokenStream;
use quote::quote;

pub fn emit(decl: &SetDecl, errors: &syn::Error) -> TokenStream {
    let compile_errors = errors.to_compile_error();
    let vis = &decl.vis;
    let ident = &decl.ident;
    quote! {
        #compile_errors
        #vis struct #ident;
    }
}
