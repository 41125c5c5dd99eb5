//! The MCP server's request spans, named after the OpenTelemetry MCP semantic
//! conventions, and the W3C trace context a client sends in a request's `_meta`.
//!
//! Each `initialize`, `ping`, `tools/call` and `tools/list` request is a span
//! `{mcp.method.name} {target}` (`tools/call archive`, `tools/list`, `initialize`; kind
//! `server`) with `mcp.method.name`,
//! `jsonrpc.request.id`, `mcp.session.id` (streamable HTTP sessions) and, for a call,
//! `gen_ai.tool.name` and `gen_ai.operation.name = "execute_tool"`; the call's own
//! `execute_tool` span (see `crate::trace`) is its child. A failed request records
//! `error.type` (the JSON-RPC error code, or `tool_error` for a result with `isError`).
//! A `ping` sent before `initialize` is answered by rmcp's handshake itself, which calls
//! no handler: it has no span.
//!
//! A `traceparent` in the request's `_meta` is parsed into a [`TraceParent`] and handed to
//! the host's hook ([`McpServer::with_trace_parent`](super::McpServer::with_trace_parent)) before the span starts, so that the
//! request continues the caller's trace. The runtime has no OpenTelemetry dependency, so
//! the hook is where a host with `tracing-opentelemetry` sets the span's parent
//! (`OpenTelemetrySpanExt::set_parent`), which must happen before the span is first
//! entered: exactly when the hook runs.

use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, ErrorData, NumberOrString};
use rmcp::service::RequestContext;
use std::fmt;
use std::sync::Arc;
use tracing::Span;

/// The header of a streamable HTTP request carrying its MCP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// What the host does with a request's trace parent: see
/// [`McpServer::with_trace_parent`](super::McpServer::with_trace_parent).
pub(super) type ContinueTrace = Arc<dyn Fn(&Span, &TraceParent) + Send + Sync>;

/// A W3C Trace Context parent (`traceparent`), as a client sent it in a request's
/// `_meta`: the caller's trace id, its span's id and the trace flags, with the
/// `tracestate` that came along.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
    pub(super) trace_state: Option<String>,
}

impl TraceParent {
    /// Parses a `traceparent` value (`00-<32 hex>-<16 hex>-<2 hex>`, lowercase); `None`
    /// for anything the W3C Trace Context recommendation says to ignore: another length,
    /// uppercase or non-hex digits, version `ff`, an all-zero trace or parent id. A later
    /// version is read by its first four fields, as the recommendation asks.
    pub fn parse(traceparent: &str) -> Option<Self> {
        let value = traceparent.as_bytes();
        let version = hex_bytes::<1>(value.get(0..2)?)?[0];
        let exact = value.len() == 55;
        let longer = version > 0 && value.len() > 55 && value[55] == b'-';
        if version == 0xff || !(exact || longer) {
            return None;
        }
        if [value[2], value[35], value[52]] != [b'-'; 3] {
            return None;
        }
        let trace_id = hex_bytes::<16>(&value[3..35])?;
        let parent_id = hex_bytes::<8>(&value[36..52])?;
        let flags = hex_bytes::<1>(&value[53..55])?[0];
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceParent {
            trace_id,
            parent_id,
            flags,
            trace_state: None,
        })
    }

    /// The caller's trace id.
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The id of the caller's span: the parent of this request's span.
    pub fn parent_id(&self) -> [u8; 8] {
        self.parent_id
    }

    /// The trace flags (bit 0: the caller sampled the trace).
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the caller sampled the trace.
    pub fn is_sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The `tracestate` sent with it in `_meta`, as sent.
    pub fn trace_state(&self) -> Option<&str> {
        self.trace_state.as_deref()
    }
}

impl fmt::Display for TraceParent {
    /// The version-00 `traceparent` form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("00-")?;
        self.trace_id
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))?;
        f.write_str("-")?;
        self.parent_id
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))?;
        write!(f, "-{:02x}", self.flags)
    }
}

/// `N` bytes from exactly `2 * N` lowercase hex digits.
fn hex_bytes<const N: usize>(digits: &[u8]) -> Option<[u8; N]> {
    if digits.len() != 2 * N {
        return None;
    }
    let digit = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0; N];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(bytes)
}

/// Records a `tools/call` answer on its span: `error.type` when it failed.
pub(super) fn record_call(span: &Span, answer: &Result<CallToolResponse, ErrorData>) {
    if span.is_disabled() {
        return;
    }
    match answer {
        // A task's result is not known yet: its request went well.
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            record_error(span, "tool_error")
        }
        Ok(_) => {}
        Err(error) => record_error(span, &error.code.0.to_string()),
    }
}

/// Records a failed request on its span.
pub(super) fn record_error(span: &Span, error_type: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
}

/// The session id of a streamable HTTP request (none over stdio).
pub(super) fn session_id(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.headers.get(SESSION_HEADER))
        .and_then(|value| value.to_str().ok())
}

/// `{method} {target}`, or the method alone.
pub(super) struct SpanName<'a>(pub(super) &'static str, pub(super) Option<&'a str>);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// A JSON-RPC request id as text.
pub(super) struct RequestIdText<'a>(pub(super) &'a NumberOrString);

impl fmt::Display for RequestIdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            NumberOrString::Number(number) => write!(f, "{number}"),
            NumberOrString::String(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TraceParent;

    #[test]
    fn a_valid_traceparent_is_read_and_written_back_unchanged() {
        let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let parent = TraceParent::parse(text).expect("a valid traceparent");
        assert_eq!(parent.trace_id()[..2], [0x0a, 0xf7]);
        assert_eq!(parent.parent_id()[7], 0x31);
        assert!(parent.is_sampled());
        assert_eq!(parent.to_string(), text);
    }

    #[test]
    fn a_traceparent_the_recommendation_says_to_ignore_is_not_read() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad:?} was read");
        }
        // A later version may carry more fields after the four it shares with 00.
        let later = "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-next";
        assert!(TraceParent::parse(later).is_some());
    }
}
