//! The errors found in one macro input, collected so the user sees every mistake at once.
//!
//! A `Ctxt` must be finished: dropping one unchecked panics (in the macro, so in tests),
//! which makes "recorded an error, then emitted the expansion anyway" impossible to write
//! by accident.

use quote::ToTokens;
use std::fmt::Display;
use std::thread;

/// The errors recorded so far. Consume it with [`Ctxt::finish`].
pub struct Ctxt {
    errors: Vec<syn::Error>,
    finished: bool,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: Vec::new(),
            finished: false,
        }
    }

    /// Records an error underlining `tokens`.
    pub fn error_at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error already built (by syn's parser, or at a bare span).
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// How many errors have been recorded: a stage compares it before and after its
    /// checks to know whether its own part held.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// `value` when no error was recorded, else every error as one `syn::Error`.
    ///
    /// `value` is `None` only where a stage recorded why; should a stage ever fail
    /// without saying so, the user still gets an error rather than a silent no-op.
    pub fn finish<T>(mut self, value: Option<T>) -> Result<T, syn::Error> {
        self.finished = true;
        let mut errors = std::mem::take(&mut self.errors).into_iter();
        match (errors.next(), value) {
            (None, Some(value)) => Ok(value),
            (Some(mut combined), _) => {
                for error in errors {
                    combined.combine(error);
                }
                Err(combined)
            }
            (None, None) => Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "internal error in toolset-macros: this input was rejected without a reason; \
                 please report it with the item that triggered it",
            )),
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !self.finished && !thread::panicking() {
            panic!(
                "toolset-macros: a Ctxt was dropped without `finish`, so its errors would be lost"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_hands_back_the_value_when_nothing_went_wrong() {
        assert_eq!(Ctxt::new().finish(Some(7)).ok(), Some(7));
    }

    #[test]
    fn finish_reports_every_recorded_error_together() {
        let mut cx = Ctxt::new();
        cx.error_at(quote::quote!(a), "first");
        cx.error_at(quote::quote!(b), "second");
        let combined = cx
            .finish(Some(()))
            .err()
            .map(|error| error.into_iter().count());
        assert_eq!(combined, Some(2));
    }

    #[test]
    fn finish_never_succeeds_without_a_value() {
        assert!(Ctxt::new().finish(None::<()>).is_err());
    }

    #[test]
    #[should_panic(expected = "without `finish`")]
    fn dropping_an_unfinished_context_panics() {
        let mut cx = Ctxt::new();
        cx.error_at(quote::quote!(a), "lost");
    }
}
