//! The server's request spans: [`McpServer::with_trace_parent`], the span of each request
//! and the `initialize` and `ping` answers in theirs. Beside `trace.rs` (what a span
//! records, the trace context), which names no server, so the server can hold its hook.

use super::McpServer;
use super::trace::{RequestIdText, SpanName, TraceParent, record_error, session_id};
use crate::set::ToolSet;
use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::{ErrorData, InitializeRequestParams, InitializeResult};
use rmcp::service::RequestContext;
use std::sync::Arc;
use tracing::Span;
use tracing::field::Empty;

impl<T: ToolSet> McpServer<T> {
    /// Continues the caller's trace: for every request whose `_meta` carries a valid
    /// `traceparent`, `continue_trace` gets the request's span, not yet started, and the
    /// parsed parent. Without a hook the span is a root (or a child of the current
    /// span). With `tracing-opentelemetry` (not compiled here: toolset does not depend on
    /// opentelemetry; `tests/tests/tracing_otel.rs` compiles and runs this hook):
    ///
    /// ```ignore
    /// use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
    /// use tracing_opentelemetry::OpenTelemetrySpanExt;
    ///
    /// let server = server.with_trace_parent(|span, parent| {
    ///     let remote = SpanContext::new(
    ///         TraceId::from_bytes(parent.trace_id()),
    ///         SpanId::from_bytes(parent.parent_id()),
    ///         TraceFlags::new(parent.flags()),
    ///         true,
    ///         TraceState::default(),
    ///     );
    ///     let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(remote));
    /// });
    /// ```
    pub fn with_trace_parent(
        mut self,
        continue_trace: impl Fn(&Span, &TraceParent) + Send + Sync + 'static,
    ) -> Self {
        self.continue_trace = Some(Arc::new(continue_trace));
        self
    }

    /// The span of one request: `{method} {target}`, with the request's id and session,
    /// continuing the caller's trace when it sent one and the host asked for it.
    pub(super) fn request_span(
        &self,
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
    ) -> Span {
        let span = tracing::info_span!(
            "mcp_request",
            otel.name = %SpanName(method, tool),
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = method,
            mcp.session.id = session_id(context),
            jsonrpc.request.id = %RequestIdText(&context.id),
            gen_ai.tool.name = tool,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            "error.type" = Empty,
        );
        if let Some(continue_trace) = &self.continue_trace
            && !span.is_disabled()
            && let Some(mut parent) = context.meta.get_traceparent().and_then(TraceParent::parse)
        {
            parent.trace_state = context.meta.get_tracestate().map(str::to_owned);
            continue_trace(&span, &parent);
        }
        span
    }
}

impl<T: ToolSet> McpServer<T> {
    /// `initialize`, in its request span: records the client, then negotiates the
    /// protocol version as rmcp's own handler does; a refused version is the span's
    /// `error.type`.
    pub(super) fn initialize_in_span(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let span = self.request_span("initialize", None, &context);
        let _in_request = span.enter();
        let answer = self.negotiate_initialize(&request);
        context.peer.set_peer_info(request);
        if let Err(error) = &answer
            && !span.is_disabled()
        {
            record_error(&span, &error.code.0.to_string());
        }
        answer
    }

    /// `ping`, in its request span (it always succeeds).
    pub(super) fn ping_in_span(&self, context: &RequestContext<RoleServer>) {
        let _span = self.request_span("ping", None, context);
    }
}
