//! What a running handler may ask whoever runs its call, through its
//! [`ToolContext`](crate::ToolContext): the user (a form, MCP elicitation), the client's
//! model (MCP sampling) or the client's roots (MCP `roots/list`); the answers, the
//! [`AskError`] a handler acts on when nobody can answer, and the [`Asker`] a host plugs
//! in to answer them (an MCP server asks its client). Plain types: no stage, no transport.

use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// Which of the three asks: it names what the client must declare to be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Asking {
    /// Asking the user to fill in a form ([`ToolContext::elicit`](crate::ToolContext::elicit)).
    Elicitation,
    /// Asking the client's model for a completion
    /// ([`ToolContext::sample`](crate::ToolContext::sample)).
    Sampling,
    /// Reading the client's roots ([`ToolContext::roots`](crate::ToolContext::roots)).
    Roots,
}

impl Asking {
    /// The MCP client capability that must be declared for this ask: `"elicitation"`,
    /// `"sampling"` or `"roots"`.
    pub fn capability(self) -> &'static str {
        match self {
            Asking::Elicitation => "elicitation",
            Asking::Sampling => "sampling",
            Asking::Roots => "roots",
        }
    }

    /// What the ask does, as an error message names it.
    fn doing(self) -> &'static str {
        match self {
            Asking::Elicitation => "asking the user (elicitation)",
            Asking::Sampling => "asking the client's model (sampling)",
            Asking::Roots => "reading the client's roots",
        }
    }
}

impl fmt::Display for Asking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.capability())
    }
}

/// A form for the user: a message and the schema of what to fill in (MCP elicitation's
/// form mode). The schema is a JSON Schema object of flat properties, each a string,
/// number, integer, boolean or enum, with optional `default`s (SEP-1034) and the enum
/// shapes of SEP-1330: `enum`, titled `oneOf`, legacy `enumNames`, and arrays of either
/// for a multi-select. The client checks the answer against it; check it again in the
/// handler, as anything a client sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// What the user is asked, shown above the form.
    pub message: String,
    /// The `requestedSchema`: `{"type": "object", "properties": {...}, "required": [...]}`.
    pub schema: Value,
    /// The key the form is asked under in an MCP `input_required` round (2026-07-28 and
    /// later): `None` for `"elicitation"` ([`Form::with_key`]).
    pub key: Option<String>,
}

impl Form {
    /// A form showing `message` above the fields `schema` describes.
    pub fn new(message: impl Into<String>, schema: Value) -> Self {
        Form {
            message: message.into(),
            schema,
            key: None,
        }
    }

    /// The same form asked under `key` in an MCP `input_required` round (2026-07-28 and
    /// later), where a client answers each of a round's asks by its key; without one, the
    /// key is `"elicitation"`. A key asked again in the same call gets `-2`, `-3`, ...
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

/// What the user did with a [`Form`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormAction {
    /// Submitted it: the answer's `content` holds what was filled in.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl FormAction {
    /// The action as MCP writes it: `"accept"`, `"decline"` or `"cancel"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FormAction::Accept => "accept",
            FormAction::Decline => "decline",
            FormAction::Cancel => "cancel",
        }
    }
}

/// The user's answer to a [`Form`].
#[derive(Debug, Clone, PartialEq)]
pub struct FormAnswer {
    /// What the user did.
    pub action: FormAction,
    /// What the user filled in, on [`FormAction::Accept`].
    pub content: Option<Map<String, Value>>,
}

impl FormAnswer {
    /// What the user filled in, only when the form was accepted.
    pub fn accepted(&self) -> Option<&Map<String, Value>> {
        match self.action {
            FormAction::Accept => self.content.as_ref(),
            FormAction::Decline | FormAction::Cancel => None,
        }
    }
}

/// Who said a [`SamplingMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One text message of the conversation a [`Sampling`] hands the client's model.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub text: String,
}

/// A completion asked of the client's model (MCP `sampling/createMessage`): the client
/// picks the model, may show the request to its user and may refuse it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    /// The conversation so far, oldest first.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the answer may have.
    pub max_tokens: u32,
    /// A system prompt the client may use.
    pub system_prompt: Option<String>,
    /// The key the request is asked under in an MCP `input_required` round (2026-07-28
    /// and later): `None` for `"sampling"` ([`Sampling::with_key`]).
    pub key: Option<String>,
}

impl Sampling {
    /// One user message, `prompt`, answered in at most `max_tokens`.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Sampling {
            messages: vec![SamplingMessage {
                role: Role::User,
                text: prompt.into(),
            }],
            max_tokens,
            system_prompt: None,
            key: None,
        }
    }

    /// The same request asked under `key` in an MCP `input_required` round (2026-07-28
    /// and later); without one, the key is `"sampling"`. A key asked again in the same
    /// call gets `-2`, `-3`, ...
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The same request with `system_prompt`.
    pub fn with_system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }
}

/// The client model's answer to a [`Sampling`].
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// The model that answered, as the client names it.
    pub model: String,
    /// Its text: the answer's text parts, joined; `None` when it has none (an image,
    /// audio).
    pub text: Option<String>,
    /// The answer's content as the client sent it (one content block or a list).
    pub content: Value,
    /// Why the model stopped (`"endTurn"`, `"maxTokens"`, ...), when the client says.
    pub stop_reason: Option<String>,
}

/// One of the client's roots: a directory or file it lets servers work in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its URI, e.g. `file:///home/user/project`.
    pub uri: String,
    /// Its name, when the client gives one.
    pub name: Option<String>,
}

/// Why an ask got no answer. Every ask can fail: handle it (go on without the answer,
/// use a default, or return an error that says what the tool needed), so the handler
/// works wherever it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AskError {
    /// Nobody can be asked here: the call does not run for an MCP client (a provider
    /// loop, the driver, a test's `ToolContext::default()`), or its client's protocol
    /// revision has no way to be asked mid-call. `why` says which.
    NotAvailable {
        /// What was asked.
        asking: Asking,
        /// Why nobody can be asked.
        why: &'static str,
    },
    /// The MCP client did not declare the capability this ask needs, so it was not asked.
    NotDeclared(Asking),
    /// The client was asked and did not answer: it refused, answered with an error, went
    /// away, or the ask itself was malformed. `reason` says which.
    Failed {
        /// What was asked.
        asking: Asking,
        /// What went wrong.
        reason: String,
    },
}

impl AskError {
    /// What was asked.
    pub fn asking(&self) -> Asking {
        match self {
            AskError::NotAvailable { asking, .. } | AskError::Failed { asking, .. } => *asking,
            AskError::NotDeclared(asking) => *asking,
        }
    }
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::NotAvailable { asking, why } => write!(
                f,
                "{} is not available here: {why}; go on without the answer, \
                 or say what the tool needs in its result",
                asking.doing()
            ),
            AskError::NotDeclared(asking) => write!(
                f,
                "{} is not possible: the MCP client did not declare the `{}` capability; \
                 use a client that declares it, or go on without the answer",
                asking.doing(),
                asking.capability()
            ),
            AskError::Failed { asking, reason } => {
                write!(f, "{} failed: {reason}", asking.doing())
            }
        }
    }
}

impl std::error::Error for AskError {}

/// Why nobody can be asked outside an MCP server ([`AskError::NotAvailable`]).
pub(crate) const NO_CLIENT: &str = "the call is not served to an MCP client";

/// The future an [`Asker`] answers with.
pub type AskFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, AskError>> + Send + 'a>>;

/// Answers a handler's asks; the host plugs one in with
/// [`ToolContext::with_asker`](crate::ToolContext::with_asker) (an MCP server plugs in
/// one asking its client, for each call). Without one, every ask answers
/// [`AskError::NotAvailable`].
pub trait Asker: Send + Sync {
    /// Puts `form` to the user, for the call `call_id`.
    fn elicit<'a>(&'a self, call_id: &'a str, form: Form) -> AskFuture<'a, FormAnswer>;

    /// Asks the client's model to complete `sampling`, for the call `call_id`.
    fn sample<'a>(&'a self, call_id: &'a str, sampling: Sampling) -> AskFuture<'a, Sampled>;

    /// Reads the client's roots, for the call `call_id`.
    fn roots<'a>(&'a self, call_id: &'a str) -> AskFuture<'a, Vec<Root>>;
}
