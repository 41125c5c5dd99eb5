//! Collects every mistake in one macro input, so the user sees them all at once.

use proc_macro2::TokenStream;
use std::fmt::Display;

/// The errors found so far; turned into `compile_error!`s at the end.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records an error pointing at `tokens`.
    pub fn at(&mut self, tokens: impl quote::ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error already built (e.g. by syn's parser).
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// True when nothing went wrong.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// Every error as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
