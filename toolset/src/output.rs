//! What a tool call produces, the handler return types that convert into it, and the
//! result sent back to the model for one call.

use crate::call::Caller;
use crate::error::ToolError;
use crate::messages::Late;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The result of a tool call, in the shape every provider and MCP can carry: its parts
/// ([`content`](Self::content)), whether it is an error, and, rarely, a structured value,
/// host-only metadata and tools it activates.
///
/// Small by design, since every call's output is moved from the handler into the report:
/// one part is held in place (a handler returning a `String` costs no allocation beyond
/// the `String`), and the rare fields sit behind one box, allocated only when set. Read it
/// with the accessors; take it apart with [`into_parts`](Self::into_parts), and build one
/// field by field from [`ToolOutputParts`]. Serialized, it has the fields of
/// [`ToolOutputParts`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// The parts, in order.
    pub(crate) content: Parts,
    /// True when the content describes an error the model should react to.
    pub(crate) is_error: bool,
    /// The structured value, the metadata and the activations, when any is set.
    extra: Option<Box<Extra>>,
}

/// The fields of a [`ToolOutput`] rarely set, kept out of line.
#[derive(Debug, Clone, Default, PartialEq)]
struct Extra {
    structured: Option<Value>,
    metadata: Option<Value>,
    activate: Vec<String>,
}

/// A [`ToolOutput`]'s fields, owned and public: what [`ToolOutput::into_parts`] gives, what
/// `ToolOutput::from` builds an output of, and the output's serialized form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutputParts {
    /// What the model reads: its parts (text, images, audio, resources), in order.
    #[serde(default)]
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
    /// [`Activations`](crate::request::Activations)). `apply` checks every name against the set: an
    /// unknown one, or one the request's policy hides (to the model, a name no tool has),
    /// turns the call into a failed outcome instead of being dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activate: Vec<String>,
}

/// An output's parts: one held in place, or none or several in a `Vec` (never one: a
/// single part is always `One`, so equal parts compare equal).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Parts {
    /// Exactly one part.
    One(Content),
    /// None, or two or more.
    Many(Vec<Content>),
}

impl Default for Parts {
    fn default() -> Self {
        Parts::Many(Vec::new())
    }
}

impl std::ops::Deref for Parts {
    type Target = [Content];

    fn deref(&self) -> &[Content] {
        self.as_slice()
    }
}

impl Parts {
    /// The parts of `content`, one held in place.
    fn from_vec(mut content: Vec<Content>) -> Self {
        match content.len() {
            1 => content.pop().map_or_else(Parts::default, Parts::One),
            _ => Parts::Many(content),
        }
    }

    /// The parts as a slice.
    pub(crate) fn as_slice(&self) -> &[Content] {
        match self {
            Parts::One(part) => std::slice::from_ref(part),
            Parts::Many(parts) => parts,
        }
    }

    /// Appends `part`.
    pub(crate) fn push(&mut self, part: Content) {
        match self {
            Parts::Many(parts) if parts.is_empty() => *self = Parts::One(part),
            Parts::Many(parts) => parts.push(part),
            Parts::One(_) => {
                if let Parts::One(first) = std::mem::take(self) {
                    *self = Parts::Many(vec![first, part]);
                }
            }
        }
    }

    /// The parts, owned, in order.
    pub(crate) fn into_vec(self) -> Vec<Content> {
        match self {
            Parts::One(part) => vec![part],
            Parts::Many(parts) => parts,
        }
    }
}

impl IntoIterator for Parts {
    type Item = Content;
    type IntoIter = std::iter::Chain<std::option::IntoIter<Content>, std::vec::IntoIter<Content>>;

    /// The parts, owned, in order, without a `Vec` for one part.
    fn into_iter(self) -> Self::IntoIter {
        let (one, many) = match self {
            Parts::One(part) => (Some(part), Vec::new()),
            Parts::Many(parts) => (None, parts),
        };
        one.into_iter().chain(many)
    }
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
    /// Audio (MCP `audio`): the providers' APIs, which take no audio in a tool result, get
    /// a line saying it was left out. Boxed, being rare: every part is as small as an
    /// image part.
    Audio(Box<Audio>),
    /// A resource embedded whole (MCP `resource`): the providers' APIs get its text under
    /// a line naming its URI, or a line saying its bytes were left out. Boxed, being rare:
    /// every part is as small as a text part.
    Resource(Box<EmbeddedResource>),
    /// A link to a resource the client may read itself (MCP `resource_link`): the
    /// providers' APIs get a line naming it. Boxed, being rare.
    ResourceLink(Box<ResourceLink>),
}

/// Audio in a tool's output ([`Content::Audio`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Audio {
    /// The base64-encoded bytes.
    pub data: String,
    /// The MIME type, e.g. `audio/wav`.
    pub mime_type: String,
}

/// A resource embedded in a tool's output ([`Content::Resource`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// Its URI, e.g. `file:///notes/today.md`.
    pub uri: String,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// Its contents.
    pub contents: ResourceContents,
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceContents {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

/// A link to a resource in a tool's output ([`Content::ResourceLink`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// What it is, if said.
    pub description: Option<String>,
}

impl ToolOutput {
    /// An output with no content (what a handler returning `()` produces).
    pub fn empty() -> Self {
        ToolOutput::default()
    }

    /// A text output.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: Parts::One(Content::Text { text: text.into() }),
            is_error: false,
            extra: None,
        }
    }

    /// A structured output: the JSON value, also rendered as text for consumers that only
    /// read text.
    pub fn structured(value: Value) -> Self {
        let mut output = ToolOutput::text(value.to_string());
        output.extra_mut().structured = Some(value);
        output
    }

    /// An error output: text the model should read as an error.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            is_error: true,
            ..ToolOutput::text(text)
        }
    }

    /// What the model reads: its parts (text, images, audio, resources), in order.
    pub fn content(&self) -> &[Content] {
        self.content.as_slice()
    }

    /// Whether the content describes an error the model should react to.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The structured JSON result, for tools returning [`Json<T>`]; it matches the tool's
    /// output schema.
    pub fn structured_content(&self) -> Option<&Value> {
        self.extra.as_ref()?.structured.as_ref()
    }

    /// Data for the host only (logs, UI); never sent to the model.
    pub fn metadata(&self) -> Option<&Value> {
        self.extra.as_ref()?.metadata.as_ref()
    }

    /// The deferred tools this output makes available from the next request on, by name
    /// (see [`activating`](Self::activating)).
    pub fn activates(&self) -> &[String] {
        self.extra
            .as_ref()
            .map_or(&[][..], |extra| extra.activate.as_slice())
    }

    /// Appends a part.
    pub fn push(&mut self, part: Content) {
        self.content.push(part);
    }

    /// Marks the output as an error the model should react to, or not.
    pub fn set_error(&mut self, is_error: bool) {
        self.is_error = is_error;
    }

    /// Appends an image part.
    pub fn with_image(mut self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.content.push(Content::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Appends an audio part (base64-encoded `data`, e.g. `audio/wav`).
    pub fn with_audio(mut self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.content.push(Content::Audio(Box::new(Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        })));
        self
    }

    /// Appends a resource embedded as text: its `uri`, MIME type (if known) and `text`.
    pub fn with_resource(
        mut self,
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Self {
        self.content
            .push(Content::Resource(Box::new(EmbeddedResource {
                uri: uri.into(),
                mime_type: mime_type.map(str::to_owned),
                contents: ResourceContents::Text(text.into()),
            })));
        self
    }

    /// Appends a resource embedded as bytes: its `uri`, MIME type (if known) and
    /// base64-encoded `blob`.
    pub fn with_resource_blob(
        mut self,
        uri: impl Into<String>,
        mime_type: Option<&str>,
        blob: impl Into<String>,
    ) -> Self {
        self.content
            .push(Content::Resource(Box::new(EmbeddedResource {
                uri: uri.into(),
                mime_type: mime_type.map(str::to_owned),
                contents: ResourceContents::Blob(blob.into()),
            })));
        self
    }

    /// Appends a link to the resource at `uri`, called `name`, for the client to read.
    pub fn with_resource_link(mut self, uri: impl Into<String>, name: impl Into<String>) -> Self {
        self.content
            .push(Content::ResourceLink(Box::new(ResourceLink {
                uri: uri.into(),
                name: name.into(),
                mime_type: None,
                description: None,
            })));
        self
    }

    /// Makes the deferred tools `names` available from the next request on (a tool's way of
    /// unlocking others, as a tool search does).
    pub fn activating<I, N>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = N>,
        N: Into<String>,
    {
        let mut names = names.into_iter().peekable();
        if names.peek().is_some() {
            self.extra_mut().activate.extend(names.map(Into::into));
        }
        self
    }

    /// Attaches host-only metadata.
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.extra_mut().metadata = Some(metadata);
        self
    }

    /// Sets the structured JSON result (see [`structured_content`](Self::structured_content)),
    /// keeping the content as it is.
    pub fn with_structured_content(mut self, value: Value) -> Self {
        self.extra_mut().structured = Some(value);
        self
    }

    /// All text parts joined by newlines; what a text-only consumer shows the model.
    pub fn text_content(&self) -> String {
        if let [Content::Text { text }] = self.content() {
            return text.clone();
        }
        let texts: Vec<&str> = self
            .content()
            .iter()
            .filter_map(|part| match part {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The output's fields, owned.
    pub fn into_parts(self) -> ToolOutputParts {
        let Extra {
            structured,
            metadata,
            activate,
        } = self.extra.map(|extra| *extra).unwrap_or_default();
        ToolOutputParts {
            content: self.content.into_vec(),
            structured,
            is_error: self.is_error,
            metadata,
            activate,
        }
    }

    /// What goes on the wire: the parts, the structured value and the error flag, moved
    /// out (the metadata and the activations are dropped).
    pub(crate) fn into_sent(self) -> (Parts, Option<Value>, bool) {
        let structured = self.extra.and_then(|extra| extra.structured);
        (self.content, structured, self.is_error)
    }

    /// The activations, taken out (the output keeps the rest).
    #[cfg(feature = "mcp")]
    pub(crate) fn take_activations(&mut self) -> Vec<String> {
        self.extra
            .as_mut()
            .map(|extra| std::mem::take(&mut extra.activate))
            .unwrap_or_default()
    }

    /// The rare fields, boxed on first use.
    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }
}

impl From<ToolOutputParts> for ToolOutput {
    fn from(parts: ToolOutputParts) -> Self {
        let ToolOutputParts {
            content,
            structured,
            is_error,
            metadata,
            activate,
        } = parts;
        let rare = structured.is_some() || metadata.is_some() || !activate.is_empty();
        ToolOutput {
            content: Parts::from_vec(content),
            is_error,
            extra: rare.then(|| {
                Box::new(Extra {
                    structured,
                    metadata,
                    activate,
                })
            }),
        }
    }
}

/// The serialized form, borrowed: [`ToolOutputParts`]'s fields.
#[derive(Serialize)]
struct Wire<'a> {
    content: &'a [Content],
    #[serde(skip_serializing_if = "Option::is_none")]
    structured: Option<&'a Value>,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Value>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    activate: &'a [String],
}

impl Serialize for ToolOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire {
            content: self.content(),
            structured: self.structured_content(),
            is_error: self.is_error,
            metadata: self.metadata(),
            activate: self.activates(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolOutput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ToolOutputParts::deserialize(deserializer).map(ToolOutput::from)
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

/// Whether `value` holds a `null` anywhere: only then can a non-finite float have been
/// written into it (serde_json writes NaN and the infinities as `null`).
fn holds_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(holds_null),
        Value::Object(members) => members.values().any(holds_null),
        Value::Bool(_) | Value::Number(_) | Value::String(_) => false,
    }
}

/// A `Json<T>` is serialized once; a non-finite float in it (which serde_json would send
/// as `null`, whatever the output schema says) fails the call, naming where it is. The
/// schema check itself is apply's, for every tool's structured output
/// (`ToolSpec::output_problems`); this one holds without the `constraints` feature too.
impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(&self.0)
            .map_err(|error| ToolError::failed(crate::messages::unserializable_result(&error)))?;
        if holds_null(&value)
            && let Some(at) = crate::non_finite::non_finite_at(&self.0)
        {
            return Err(ToolError::failed(crate::messages::output_mismatch(
                &crate::messages::non_finite_output(&at),
            )));
        }
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
/// The `caller` and `late` fields are new in this release: a struct literal must name them
/// (`caller: Caller::Direct, late: None` for what it meant before), or use
/// [`ToolReply::new`].
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
    /// How a late result came to be late (the follow-up says it beside the result):
    /// awaiting approval, run again after a crash, or cut off by one. `None` for an answer
    /// given in its turn, and absent from its serialized form then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<Late>,
}

impl ToolReply {
    /// The reply to a direct call `call_id` to `name`.
    pub fn new(call_id: impl Into<String>, name: impl Into<String>, output: ToolOutput) -> Self {
        ToolReply {
            call_id: call_id.into(),
            name: name.into(),
            output,
            caller: Caller::Direct,
            late: None,
        }
    }

    /// The reply to `call`, under its id and name, to whoever made it.
    pub fn to(call: &crate::call::ToolCall, output: ToolOutput) -> Self {
        ToolReply {
            call_id: call.id.clone(),
            name: call.name.clone(),
            output,
            caller: call.caller.clone(),
            late: None,
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
        assert_eq!(
            output.structured_content(),
            Some(&serde_json::json!([1, 2]))
        );
        assert_eq!(output.text_content(), "[1,2]");
        assert!(!output.is_error());
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
        assert_eq!(error.kind(), crate::error::ToolErrorKind::Failed);
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
    fn a_json_holding_a_non_finite_float_fails_naming_where_with_or_without_constraints() {
        let error = Json(vec![1.0, f64::NAN]).into_tool_output().unwrap_err();
        assert_eq!(error.kind(), crate::error::ToolErrorKind::Failed);
        assert!(error.message().contains("/1: NaN"), "{}", error.message());
        assert!(
            error.message().contains("declared output schema"),
            "{}",
            error.message()
        );
        // A `null` that was one stays one.
        let none = Json(vec![Some(1.0), None]).into_tool_output().unwrap();
        assert_eq!(
            none.structured_content(),
            Some(&serde_json::json!([1.0, null]))
        );
    }

    #[test]
    fn only_json_returns_have_an_output_schema() {
        assert!(<String as IntoToolOutput>::output_schema().is_none());
        assert!(<Result<Json<u32>, ToolError> as IntoToolOutput>::output_schema().is_some());
    }
}
