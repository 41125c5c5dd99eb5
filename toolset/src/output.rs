//! What a tool call produces, the handler return types that convert into it, and the
//! result sent back to the model for one call.

use crate::ToolError;
use crate::call::Caller;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The result of a tool call, in the shape every provider and MCP can carry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// What the model reads: text and image parts, in order.
    pub content: Vec<Content>,
    /// Structured JSON result, for tools returning [`Json<T>`]; it matches the tool's
    /// output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// True when the content describes an error the model should react to.
    #[serde(default)]
    pub is_error: bool,
    /// Data for the host only (logs, UI); never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Deferred tools this output makes available from the next request on, by name (see
    /// [`Activations`](crate::Activations)). `apply` checks every name against the set: an
    /// unknown one, or one the request's policy hides (to the model, a name no tool has),
    /// turns the call into a failed outcome instead of being dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activate: Vec<String>,
}

/// One part of a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64-encoded bytes.
        data: String,
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
    },
}

impl ToolOutput {
    /// An output with no content (what a handler returning `()` produces).
    pub fn empty() -> Self {
        ToolOutput::default()
    }

    /// A text output.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text { text: text.into() }],
            ..ToolOutput::default()
        }
    }

    /// A structured output: the JSON value, also rendered as text for consumers that only
    /// read text.
    pub fn structured(value: Value) -> Self {
        ToolOutput {
            content: vec![Content::Text {
                text: value.to_string(),
            }],
            structured: Some(value),
            ..ToolOutput::default()
        }
    }

    /// An error output: text the model should read as an error.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            is_error: true,
            ..ToolOutput::text(text)
        }
    }

    /// Appends an image part.
    pub fn with_image(mut self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.content.push(Content::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Makes the deferred tools `names` available from the next request on (a tool's way of
    /// unlocking others, as a tool search does).
    pub fn activating<I, N>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = N>,
        N: Into<String>,
    {
        self.activate.extend(names.into_iter().map(Into::into));
        self
    }

    /// Attaches host-only metadata.
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// All text parts joined by newlines; what a text-only consumer shows the model.
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// A structured result: serialized to JSON for the model, with an output schema derived
/// from `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// Conversion from a handler's return value into a tool result.
///
/// Implemented for `()`, `String`, `&'static str`, [`ToolOutput`], [`Json<T>`] and
/// `Result<T, E>` of those with `E: Display + 'static`: a [`ToolError`] (kept as it is, so
/// a skip stays a skip and a [retry](ToolError::retry) a retry), `String`,
/// `&'static str` or the handler's own error type, whose text the model reads as a
/// failure. A handler's `std::error::Error` (returned as `E`, or converted into a
/// `ToolError` by `?`) is kept as the failure's [`source`](ToolError::source), chain and
/// all, for the host: `#[tool]` converts the returned value where its type is known. (Here,
/// through this trait alone, only a `ToolError` and a `Box<dyn Error + Send + Sync>` keep
/// theirs; another `E` is its text.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool handler",
    label = "this return type is not a tool result",
    note = "return `()`, `String`, `toolset::Json<T>` (T: Serialize + JsonSchema), `toolset::ToolOutput`, or a `Result<_, E>` of one of those with `E: Display` (`toolset::ToolError`, `String`, `&'static str`, your error type)"
)]
pub trait IntoToolOutput {
    /// Converts the value into the call's result.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;

    /// The JSON schema of the structured output, when the return type has one.
    fn output_schema() -> Option<Value> {
        None
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::empty())
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(&self.0)
            .map_err(|error| ToolError::failed(crate::messages::unserializable_result(&error)))?;
        Ok(ToolOutput::structured(value))
    }

    fn output_schema() -> Option<Value> {
        Some(crate::schema::output_schema_for::<T>())
    }
}

impl<T: IntoToolOutput, E: fmt::Display + 'static> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        self.map_err(ToolError::from_returned)?.into_tool_output()
    }

    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

/// What goes back to the model for one call (a struct, not a `Result`): the
/// provider-neutral form the `results` renderers turn into OpenAI, Anthropic, Gemini or MCP messages.
///
/// The `caller` field is new in this release: a struct literal must name it
/// (`caller: Caller::Direct` for what it meant before), or use [`ToolReply::new`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolReply {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool name the model used (Gemini matches results by name).
    pub name: String,
    /// What the model reads.
    pub output: ToolOutput,
    /// Who made the call this answers, as its [`ToolCall`](crate::ToolCall) said: a result
    /// for a call from code goes back to that code where the format names it (OpenAI
    /// Responses' `function_call_output.caller`). Absent from the serialized form of a
    /// direct call's reply.
    #[serde(default, skip_serializing_if = "Caller::is_direct")]
    pub caller: Caller,
}

impl ToolReply {
    /// The reply to a direct call `call_id` to `name`.
    pub fn new(call_id: impl Into<String>, name: impl Into<String>, output: ToolOutput) -> Self {
        ToolReply {
            call_id: call_id.into(),
            name: name.into(),
            output,
            caller: Caller::Direct,
        }
    }

    /// The reply to `call`, under its id and name, to whoever made it.
    pub fn to(call: &crate::ToolCall, output: ToolOutput) -> Self {
        ToolReply {
            call_id: call.id.clone(),
            name: call.name.clone(),
            output,
            caller: call.caller.clone(),
        }
    }

    /// This reply, to a call `caller` made.
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_output_is_structured_and_readable_as_text() {
        let output = Json(vec![1, 2]).into_tool_output().unwrap();
        assert_eq!(output.structured, Some(serde_json::json!([1, 2])));
        assert_eq!(output.text_content(), "[1,2]");
        assert!(!output.is_error);
    }

    #[test]
    fn result_err_becomes_the_tool_error() {
        let result: Result<String, ToolError> = Err(ToolError::skipped("nothing to do"));
        assert!(result.into_tool_output().unwrap_err().is_skip());
    }

    #[test]
    fn an_error_that_is_only_text_is_a_failure_with_that_text() {
        let owned: Result<String, String> = Err("no such note".to_owned());
        let error = owned.into_tool_output().unwrap_err();
        assert_eq!(error.kind(), crate::ToolErrorKind::Failed);
        assert_eq!(error.message(), "no such note");

        let fixed: Result<Json<u32>, &'static str> = Err("the inbox is closed");
        assert_eq!(
            fixed.into_tool_output().unwrap_err().message(),
            "the inbox is closed"
        );
    }

    #[test]
    fn a_returned_tool_error_is_kept_as_it_is() {
        let retry: Result<(), ToolError> = Err(ToolError::retry("use an id from the list"));
        let error = retry.into_tool_output().unwrap_err();
        assert!(error.is_retry());
        assert_eq!(error.message(), "use an id from the list");
    }

    #[test]
    fn a_returned_boxed_error_is_kept_as_the_source() {
        let parse = "x".parse::<u32>().unwrap_err();
        let boxed: Result<(), Box<dyn std::error::Error + Send + Sync>> = Err(Box::new(parse));
        let error = boxed.into_tool_output().unwrap_err();
        assert_eq!(error.message(), "invalid digit found in string");
        let source = error.source().expect("the boxed error is the source");
        assert!(source.downcast_ref::<std::num::ParseIntError>().is_some());
    }

    #[test]
    fn an_own_display_error_reads_as_its_text() {
        struct Closed(u32);
        impl fmt::Display for Closed {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "inbox {} is closed", self.0)
            }
        }
        let result: Result<(), Closed> = Err(Closed(3));
        let error = result.into_tool_output().unwrap_err();
        assert_eq!(error.message(), "inbox 3 is closed");
        assert!(error.source().is_none());
    }

    #[test]
    fn only_json_returns_have_an_output_schema() {
        assert!(<String as IntoToolOutput>::output_schema().is_none());
        assert!(<Result<Json<u32>, ToolError> as IntoToolOutput>::output_schema().is_some());
    }
}
