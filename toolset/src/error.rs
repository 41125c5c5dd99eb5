//! What a handler returns when it does not produce a result: a failure, or a deliberate skip.

use std::fmt;

/// Why a tool call produced no result.
///
/// A handler returns `Err(ToolError)` either because something went wrong
/// ([`ToolError::failed`]) or because it deliberately declined to act
/// ([`ToolError::skipped`]) — a business brake such as "the item already has that due
/// date", which is not an error and is reported to the model as such.
///
/// Any `std::error::Error` converts into a failure, so `?` works in handlers.
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
}

/// The two reasons a call can end without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolErrorKind {
    /// Something went wrong; the model may want to try differently.
    Failed,
    /// The handler deliberately did nothing; this is an expected outcome, not an error.
    Skipped,
}

impl ToolError {
    /// A failure with a message the model can act on.
    pub fn failed(message: impl fmt::Display) -> Self {
        ToolError {
            kind: ToolErrorKind::Failed,
            message: message.to_string(),
        }
    }

    /// A deliberate skip: the handler chose not to act, and says why.
    pub fn skipped(reason: impl fmt::Display) -> Self {
        ToolError {
            kind: ToolErrorKind::Skipped,
            message: reason.to_string(),
        }
    }

    /// Whether this is a failure or a skip.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// True for a deliberate skip.
    pub fn is_skip(&self) -> bool {
        self.kind == ToolErrorKind::Skipped
    }

    /// The message or the skip reason.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ToolErrorKind::Failed => f.write_str(&self.message),
            ToolErrorKind::Skipped => write!(f, "skipped: {}", self.message),
        }
    }
}

/// Like `anyhow`, `ToolError` is not itself a `std::error::Error`, so that every error
/// type can convert into it with `?`.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::failed(error)
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

    #[test]
    fn a_skip_is_not_a_failure() {
        let skip = ToolError::skipped("already due then");
        assert!(skip.is_skip());
        assert_eq!(skip.to_string(), "skipped: already due then");
    }
}
