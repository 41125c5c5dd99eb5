//! What a handler returns when it does not produce a result: a failure, or a deliberate skip.

use std::any::Any;
use std::error::Error;
use std::fmt;

/// Why a tool call produced no result.
///
/// A handler returns `Err(ToolError)` because something went wrong
/// ([`ToolError::failed`]), because the model should call the tool again, corrected
/// ([`ToolError::retry`], with a hint saying how), or because it deliberately declined to
/// act ([`ToolError::skipped`]) — a business brake such as "the item already has that due
/// date", which is not an error and is reported to the model as such.
///
/// Any `std::error::Error` converts into a failure, so `?` works in handlers; the error
/// is kept as the failure's [`source`](ToolError::source), chain and all, for the host's
/// logs (the model reads only the message).
///
/// A handler may also return `Result<T, E>` for any `E: Display + 'static` (`String`,
/// `&'static str`, its own error type): the text becomes the failure's message. Only a
/// `ToolError` (kept as it is) and a `Box<dyn Error + Send + Sync>` (kept as the source)
/// keep more than the text; to keep another error's source chain for the host, return
/// `Result<T, ToolError>` and let `?` convert it.
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

/// The reasons a call can end without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// Something went wrong; the model may want to try differently.
    Failed,
    /// The handler deliberately did nothing; this is an expected outcome, not an error.
    Skipped,
    /// The call was wrong in a way the model can fix: it should call the tool again,
    /// corrected as the hint says (like pydantic-ai's `ModelRetry`).
    Retry,
}

impl ToolError {
    /// A failure with a message the model can act on.
    pub fn failed(message: impl fmt::Display) -> Self {
        ToolError {
            kind: ToolErrorKind::Failed,
            message: message.to_string(),
            source: None,
        }
    }

    /// A failure with a message the model can act on, caused by `source`, which is kept
    /// for the host (see [`ToolError::source`]).
    pub fn failed_because(
        message: impl fmt::Display,
        source: impl Error + Send + Sync + 'static,
    ) -> Self {
        ToolError {
            kind: ToolErrorKind::Failed,
            message: message.to_string(),
            source: Some(Box::new(source)),
        }
    }

    /// A deliberate skip: the handler chose not to act, and says why.
    pub fn skipped(reason: impl fmt::Display) -> Self {
        ToolError {
            kind: ToolErrorKind::Skipped,
            message: reason.to_string(),
            source: None,
        }
    }

    /// A request to the model to call the tool again, corrected: `hint` says what to
    /// change ("the date must be in the future"). Recorded as
    /// [`Outcome::Retry`](crate::report::Outcome::Retry); every consumer renders it as an error
    /// result telling the model to call the tool again.
    pub fn retry(hint: impl fmt::Display) -> Self {
        ToolError {
            kind: ToolErrorKind::Retry,
            message: hint.to_string(),
            source: None,
        }
    }

    /// The error a handler returned as `Err(error)`, for any `E: Display`: a `ToolError`
    /// as it is (a skip stays a skip, a retry a retry), a `Box<dyn Error + Send + Sync>`
    /// kept as the source, anything else a failure with its text.
    pub(crate) fn from_returned<E: fmt::Display + 'static>(error: E) -> Self {
        let mut slot = Some(error);
        let any: &mut dyn Any = &mut slot;
        if let Some(error) = any
            .downcast_mut::<Option<ToolError>>()
            .and_then(Option::take)
        {
            return error;
        }
        if let Some(source) = any
            .downcast_mut::<Option<Box<dyn Error + Send + Sync>>>()
            .and_then(Option::take)
        {
            return ToolError {
                kind: ToolErrorKind::Failed,
                message: source.to_string(),
                source: Some(source),
            };
        }
        // Not taken above: the slot still holds the error.
        slot.map_or_else(|| ToolError::failed(""), ToolError::failed)
    }

    /// Whether this is a failure, a retry or a skip.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// True for a deliberate skip.
    pub fn is_skip(&self) -> bool {
        self.kind == ToolErrorKind::Skipped
    }

    /// True for a request to call the tool again ([`ToolError::retry`]).
    pub fn is_retry(&self) -> bool {
        self.kind == ToolErrorKind::Retry
    }

    /// The message, the retry hint or the skip reason.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error that caused this failure, when it was built from one (with `?`, `From`
    /// or [`ToolError::failed_because`]); its own `source()` chain continues from there.
    pub fn source(&self) -> Option<&(dyn Error + Send + Sync + 'static)> {
        self.source.as_deref()
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("source", &self.source)
            .finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ToolErrorKind::Failed => f.write_str(&self.message),
            ToolErrorKind::Skipped => write!(f, "skipped: {}", self.message),
            ToolErrorKind::Retry => write!(f, "retry: {}", self.message),
        }
    }
}

/// Like `anyhow`, `ToolError` is not itself a `std::error::Error`, so that every error
/// type can convert into it with `?`.
impl<E: Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        let message = error.to_string();
        ToolError::failed_because(message, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_mark_turns_any_error_into_a_failure() {
        fn parse(text: &str) -> Result<u32, ToolError> {
            Ok(text.parse::<u32>()?)
        }
        let error = parse("x").unwrap_err();
        assert_eq!(error.kind(), ToolErrorKind::Failed);
        assert_eq!(error.message(), "invalid digit found in string");
    }

    #[derive(Debug)]
    struct Disk;
    impl fmt::Display for Disk {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the disk is full")
        }
    }
    impl Error for Disk {}

    #[derive(Debug)]
    struct Save(Disk);
    impl fmt::Display for Save {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the note could not be saved")
        }
    }
    impl Error for Save {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_error_converted_with_question_mark_keeps_its_source_chain() {
        fn save() -> Result<(), ToolError> {
            Err(Save(Disk))?
        }
        let error = save().unwrap_err();
        assert_eq!(error.message(), "the note could not be saved");
        let source = error.source().expect("the original error is kept");
        assert!(source.downcast_ref::<Save>().is_some());
        let cause = source.source().expect("and its own source");
        assert_eq!(cause.to_string(), "the disk is full");
    }

    #[test]
    fn failed_because_keeps_the_cause_behind_its_own_message() {
        let error = ToolError::failed_because("try a shorter note", Disk);
        assert_eq!(error.message(), "try a shorter note");
        assert_eq!(
            error.source().map(ToString::to_string).as_deref(),
            Some("the disk is full")
        );
        assert!(ToolError::failed("plain").source().is_none());
    }

    #[test]
    fn a_skip_is_not_a_failure() {
        let skip = ToolError::skipped("already due then");
        assert!(skip.is_skip());
        assert_eq!(skip.to_string(), "skipped: already due then");
    }
}
