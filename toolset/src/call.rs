//! A tool call as a model emits it: id, name, raw JSON arguments, and who made it (the
//! model directly, or code the model wrote and a provider's code execution runs). A leaf:
//! the readers of each consumer's payload (`ToolCall::from_openai_chat`, ...) are inherent
//! methods written beside each consumer's parser (`consumer/*/calls.rs`), so this file
//! imports no consumer.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// One call the model asked for.
///
/// The arguments are kept as they arrived ([`Arguments`]): the model's raw JSON text, or
/// the object a transport already parsed (an MCP `tools/call`). Either way the gate
/// verifies them and deserializes them once, straight into the tool's typed arguments. A
/// call with malformed arguments is still a `ToolCall`, so the gate can reject it with a
/// message while the other calls of the program are checked too.
///
/// Build one with [`ToolCall::new`] (a direct call) and, for a call made by the model's
/// code, [`with_caller`](Self::with_caller). The `caller` field is new in this release: a
/// struct literal must name it (`caller: Caller::Direct` for what it meant before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, echoed back with the result.
    pub id: String,
    /// The tool name the model used.
    pub name: String,
    /// The arguments: JSON text, or an object already parsed.
    pub arguments: Arguments,
    /// Who made the call: the model itself, or its code (programmatic tool calling). The
    /// gate permits a call from code only to a tool the policy lets code call
    /// ([`Policy::allows_from_code`](crate::Policy::allows_from_code)). Absent from the
    /// serialized form of a direct call, so calls serialized before it existed read as
    /// direct.
    #[serde(default, skip_serializing_if = "Caller::is_direct")]
    pub caller: Caller,
}

/// Who made a tool call: the model directly, or code the model wrote, run by the
/// provider's code execution (Anthropic's `code_execution_*` tools, OpenAI Responses'
/// programmatic tool calling), which calls the host's tools as functions.
///
/// What a consumer reads from the provider's call, kept so the result can name it again:
/// Anthropic's `tool_use.caller` (`{"type": "code_execution_20260120", "tool_id": …}`),
/// OpenAI Responses' `function_call.caller` (`{"type": "program", "caller_id": …}`). A
/// caller the consumer does not know, other than `direct`, is read as code: a call whose
/// maker is unknown gets the narrower permission.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Caller {
    /// The model called the tool itself.
    #[default]
    Direct,
    /// Code the model wrote called the tool.
    Code {
        /// The provider's name for what ran the code, as it wrote it: Anthropic's code
        /// execution tool version (`code_execution_20260120`), OpenAI's `program`.
        kind: String,
        /// The provider's id of what ran the code, echoed back unchanged where the
        /// result names it: Anthropic's code execution `tool_id` (a `server_tool_use`
        /// id), OpenAI's `caller_id` (the `call_id` of the `program` item); empty when the
        /// provider gave none.
        id: String,
    },
}

impl Caller {
    /// A call from code run by `kind` (the provider's name for it), whose id is `id`.
    pub fn code(kind: impl Into<String>, id: impl Into<String>) -> Self {
        Caller::Code {
            kind: kind.into(),
            id: id.into(),
        }
    }

    /// Whether the model called the tool itself.
    pub fn is_direct(&self) -> bool {
        matches!(self, Caller::Direct)
    }

    /// Whether code the model wrote called the tool.
    pub fn is_code(&self) -> bool {
        !self.is_direct()
    }
}

impl ToolCall {
    /// A direct call from its parts.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Arguments>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            caller: Caller::Direct,
        }
    }

    /// This call, made by `caller`: `ToolCall::new(..).with_caller(Caller::code("program",
    /// "call_p1"))` is a call from OpenAI's programmatic tool calling.
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// Whether code the model wrote made this call.
    pub fn is_from_code(&self) -> bool {
        self.caller.is_code()
    }
}

/// A call's arguments as they arrived: the JSON text a model wrote (what every provider's
/// function call carries, well-formed or not), or a JSON object a transport has already
/// parsed (MCP's `tools/call` `arguments`), which the gate then reads as it is, without
/// writing it out as text and parsing it again.
///
/// Both read the same everywhere: [`text`](Self::text) gives the JSON text (an object's
/// compact serialization), equality compares that text, and the serialized form is that
/// text as a JSON string, so a stored call reads back as text.
///
/// ```
/// use toolset::ToolCall;
/// use toolset::call::Arguments;
///
/// let text = ToolCall::new("1", "search", r#"{"query":"invoice"}"#);
/// let object = serde_json::json!({"query": "invoice"});
/// let parsed = ToolCall::new("1", "search", Arguments::object(object).unwrap());
/// assert_eq!(text, parsed);
/// assert_eq!(parsed.arguments, r#"{"query":"invoice"}"#);
/// ```
#[derive(Clone)]
pub struct Arguments(Repr);

/// How [`Arguments`] hold what arrived.
#[derive(Clone)]
enum Repr {
    /// JSON text, as the model wrote it.
    Text(String),
    /// A JSON object (always a `Value::Object`), as a transport parsed it.
    Object(Value),
}

impl Arguments {
    /// Arguments a transport has already parsed: `Some` for a JSON object, `None` for any
    /// other value (send it as text, [`Arguments::from`] its JSON, for the gate to refuse
    /// with its message).
    pub fn object(value: Value) -> Option<Self> {
        value.is_object().then_some(Arguments(Repr::Object(value)))
    }

    /// The JSON text: as the model wrote it, or the parsed object's compact serialization.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Text(text) => Cow::Borrowed(text),
            Repr::Object(value) => Cow::Owned(value.to_string()),
        }
    }

    /// The parsed object, when the arguments arrived parsed.
    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        self.as_value().and_then(Value::as_object)
    }

    /// The arguments as text, when they arrived as text.
    pub fn as_text(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(text) => Some(text),
            Repr::Object(_) => None,
        }
    }

    /// The parsed object as a JSON value (always an object), when they arrived parsed.
    pub(crate) fn as_value(&self) -> Option<&Value> {
        match &self.0 {
            Repr::Text(_) => None,
            Repr::Object(value) => Some(value),
        }
    }

    /// The JSON text, owned.
    pub fn into_text(self) -> String {
        match self.0 {
            Repr::Text(text) => text,
            Repr::Object(value) => value.to_string(),
        }
    }
}

impl Default for Arguments {
    /// No arguments: empty text, which the gate reads as `{}`.
    fn default() -> Self {
        Arguments(Repr::Text(String::new()))
    }
}

impl From<String> for Arguments {
    fn from(text: String) -> Self {
        Arguments(Repr::Text(text))
    }
}

impl From<&str> for Arguments {
    fn from(text: &str) -> Self {
        Arguments(Repr::Text(text.to_owned()))
    }
}

impl From<&String> for Arguments {
    fn from(text: &String) -> Self {
        Arguments(Repr::Text(text.clone()))
    }
}

impl From<Map<String, Value>> for Arguments {
    fn from(object: Map<String, Value>) -> Self {
        Arguments(Repr::Object(Value::Object(object)))
    }
}

impl fmt::Display for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(text) => f.write_str(text),
            Repr::Object(value) => fmt::Display::fmt(value, f),
        }
    }
}

impl fmt::Debug for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

/// Equal when their texts are: one rule for text and parsed alike, so equality stays
/// transitive (two parsed objects with the same members in another order are two texts).
impl PartialEq for Arguments {
    fn eq(&self, other: &Arguments) -> bool {
        self.text() == other.text()
    }
}

impl Eq for Arguments {}

impl PartialEq<str> for Arguments {
    fn eq(&self, other: &str) -> bool {
        self.text() == other
    }
}

impl PartialEq<&str> for Arguments {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

impl PartialEq<String> for Arguments {
    fn eq(&self, other: &String) -> bool {
        self.text() == other.as_str()
    }
}

impl Serialize for Arguments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Arguments::from)
    }
}
