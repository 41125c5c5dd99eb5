//! The per-call context a handler may take as `&ToolContext`: call id, cancellation,
//! progress, log messages, asks of the client and host services.

pub use crate::ask::{
    AskError, AskFuture, Asker, Asking, Form, FormAction, FormAnswer, Role, Root, Sampled,
    Sampling, SamplingMessage,
};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
pub use tokio_util::sync::CancellationToken;

/// A progress report from a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Work done so far, in the handler's own unit.
    pub progress: f64,
    /// Total work, when known.
    pub total: Option<f64>,
    /// A human-readable note.
    pub message: Option<String>,
}

/// Receives progress reports; the host plugs one in (an MCP server forwards them as
/// `notifications/progress`).
pub trait ProgressSink: Send + Sync {
    /// Called for every report of the call `call_id`.
    fn report(&self, call_id: &str, progress: Progress);
}

/// The severity of a handler's log message: the syslog levels of RFC 5424 that MCP uses,
/// least severe first, so `a < b` when `a` is less severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information: what the call is doing.
    Info,
    /// A normal but significant event.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP writes it: `"debug"`, `"info"`, ..., `"emergency"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A log message from a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// Its severity.
    pub level: LogLevel,
    /// What the handler logged: a string, or any JSON value (MCP's `data`).
    pub data: serde_json::Value,
}

/// Receives a call's log messages; the host plugs one in (an MCP server forwards them to
/// the client as `notifications/message`, at or above the level the client asked for).
pub trait LogSink: Send + Sync {
    /// The least severe level the sink takes; `None`: it takes none. A message below it
    /// is not built: [`ToolContext::log`] drops it before calling [`LogSink::log`].
    fn level(&self) -> Option<LogLevel>;

    /// Called for every message of the call `call_id` at or above [`LogSink::level`].
    fn log(&self, call_id: &str, message: LogMessage);
}

/// Host services a handler can fetch by type, e.g. an HTTP client or a clock.
#[derive(Clone, Default)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// Adds (or replaces) the service of type `T`.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The service of type `T`, if the host provided one.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

/// The context of one tool call.
///
/// Build one per request with [`ToolContext::default`] and the `with_*` methods; `apply`
/// hands each call its own copy carrying that call's id. Cloning is cheap.
#[derive(Clone, Default)]
pub struct ToolContext {
    call_id: Option<Arc<str>>,
    /// The journaled call's idempotency key.
    idempotency_key: Option<Arc<str>>,
    cancellation: CancellationToken,
    progress: Option<Arc<dyn ProgressSink>>,
    /// Where log messages go; `None`: a `tracing` event each.
    log: Option<Arc<dyn LogSink>>,
    /// Who answers the handler's asks; `None`: nobody can be asked.
    asker: Option<Arc<dyn Asker>>,
    extensions: Arc<Extensions>,
    /// Whether call spans record arguments, results and error texts (off by default).
    traced_content: bool,
}

impl ToolContext {
    /// Cancels the calls of this context when `token` is cancelled.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// Sends progress reports to `sink`.
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Sends log messages ([`ToolContext::log`]) to `sink` instead of `tracing`.
    pub fn with_log(mut self, sink: Arc<dyn LogSink>) -> Self {
        self.log = Some(sink);
        self
    }

    /// Answers the handler's asks ([`ToolContext::elicit`], [`ToolContext::sample`],
    /// [`ToolContext::roots`]) with `asker`. The MCP server plugs in one asking its client;
    /// a host with its own way to ask (a console, a test) plugs in its own.
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    /// Makes the service `value` available to handlers through [`ToolContext::extension`].
    pub fn with_extension<T: Any + Send + Sync>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.extensions).insert(value);
        self
    }

    /// Records each call's arguments (`gen_ai.tool.call.arguments`), its result
    /// (`gen_ai.tool.call.result`) and a failed handler's own error text
    /// (`otel.status_description`) on its `execute_tool` span. Off by default: they may
    /// hold secrets or personal data, so turn it on only where the traces are kept as
    /// safely as the data. Without a tracing subscriber nothing is recorded either way.
    ///
    /// This covers what toolset records. Behind the MCP server, rmcp logs each request it
    /// receives, a `tools/call`'s arguments included, and each result at `DEBUG` (target
    /// `rmcp::service`), which toolset cannot filter: a host whose subscriber records
    /// `DEBUG` keeps them out with the directive `rmcp=info` (in an `EnvFilter`, a
    /// `Targets` filter or `RUST_LOG`, e.g. `RUST_LOG=debug,rmcp=info`). `rmcp=warn` also
    /// drops rmcp's `INFO` events of received notifications (a client's progress
    /// messages, a proxied server's log messages), which may quote content too.
    pub fn with_traced_content(mut self, on: bool) -> Self {
        self.traced_content = on;
        self
    }

    /// Whether call spans record arguments and results (see
    /// [`ToolContext::with_traced_content`]).
    pub fn traces_content(&self) -> bool {
        self.traced_content
    }

    /// The context for one call: the same services, with that call's id.
    pub fn for_call(&self, call_id: &str) -> ToolContext {
        ToolContext {
            call_id: Some(Arc::from(call_id)),
            idempotency_key: None,
            ..self.clone()
        }
    }

    /// The context for one journaled call: the same services, with that call's id and
    /// its idempotency key.
    pub(crate) fn for_journaled_call(&self, call_id: &str, key: Option<&str>) -> ToolContext {
        ToolContext {
            call_id: Some(Arc::from(call_id)),
            idempotency_key: key.map(Arc::from),
            ..self.clone()
        }
    }

    /// The idempotency key of the call being run, when it is journaled (applied with an
    /// effect journal, and not read-only); `None` otherwise. Stable across re-runs of the
    /// same call: a proposal's id for a call a human approved, else
    /// [`auto_key`](crate::store::auto_key) of its call id and arguments. Hand it to an
    /// external API that deduplicates (an `Idempotency-Key` header), so that a call
    /// re-run after a crash does its effect once.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.idempotency_key.as_deref()
    }

    /// The id of the call being run (empty outside `apply`).
    pub fn call_id(&self) -> &str {
        self.call_id.as_deref().unwrap_or("")
    }

    /// The cancellation token; cancel it to stop the calls of this context.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call has been cancelled; long handlers should check it.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Reports progress; a no-op when nobody listens.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.progress {
            sink.report(
                self.call_id(),
                Progress {
                    progress,
                    total,
                    message: message.map(str::to_owned),
                },
            );
        }
    }

    /// Logs `data` (a string, or any JSON value such as `serde_json::json!({..})`) at
    /// `level`, for whoever runs the call to read while it runs.
    ///
    /// - Served over MCP (`toolset::mcp::McpServer`), it is sent to the client as a
    ///   `notifications/message` (its `logger` the tool's name) before the call's result,
    ///   when the client asked for that level or a less severe one: by `logging/setLevel`
    ///   for its session (until then every level is sent, as the MCP SDKs do), or on
    ///   2026-07-28 and later by the request's `_meta` `io.modelcontextprotocol/logLevel`
    ///   (without it nothing is sent, as that revision requires). A client slower than the
    ///   tool loses messages past a bounded queue, and is told how many in a last warning.
    /// - Anywhere else (a provider loop, the driver, a test), it is a `tracing` event of
    ///   target `toolset::tool_log`, inside the call's `execute_tool` span when `apply` runs
    ///   it: `debug` as `DEBUG`, `info` and `notice` as `INFO`, `warning` as `WARN`, the
    ///   rest as `ERROR`, with the call id (`gen_ai.tool.call.id`) and the MCP level (`mcp.log.level`) as fields. Without a
    ///   subscriber it costs a level check.
    /// - A host's own [`LogSink`] ([`ToolContext::with_log`]) gets it otherwise.
    ///
    /// So a handler written once logs the same way wherever it runs. What it logs may be
    /// shown to users and kept: leave secrets and personal data out.
    ///
    /// ```
    /// use toolset::context::LogLevel;
    /// use toolset::{ToolContext, tool};
    ///
    /// /// Archive old mail.
    /// #[tool(tier = "reversible")]
    /// async fn archive(ctx: &ToolContext, older_than_days: u32) -> String {
    ///     ctx.log(LogLevel::Info, format!("archiving mail older than {older_than_days} days"));
    ///     if ctx.log_enabled(LogLevel::Debug) {
    ///         ctx.log(LogLevel::Debug, serde_json::json!({ "scanned": 120, "matched": 7 }));
    ///     }
    ///     "archived 7 messages".to_owned()
    /// }
    /// ```
    pub fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) {
        match &self.log {
            Some(sink) => {
                if sink.level().is_some_and(|least| level >= least) {
                    let data = data.into();
                    sink.log(self.call_id(), LogMessage { level, data });
                }
            }
            None => {
                if traced(level) {
                    trace_log(self.call_id(), level, &data.into());
                }
            }
        }
    }

    /// Whether a message at `level` would go anywhere ([`ToolContext::log`]): to check
    /// before building an expensive one.
    pub fn log_enabled(&self, level: LogLevel) -> bool {
        match &self.log {
            Some(sink) => sink.level().is_some_and(|least| level >= least),
            None => traced(level),
        }
    }

    /// Asks the user to fill in `form` and waits for the answer (MCP elicitation, form
    /// mode).
    ///
    /// - Served over MCP to a client on 2025-11-25 or earlier that declared the
    ///   `elicitation` capability, it is an `elicitation/create` request over the session;
    ///   a client that did not declare it is not asked ([`AskError::NotDeclared`]).
    /// - On MCP 2026-07-28 and later (no server requests), a `tools/call` answers
    ///   `input_required` with the form (under [`Form::key`](crate::context::Form::key)) and
    ///   stops the handler there; the client's retry runs the handler again from its start,
    ///   and this ask then returns the answer. So on that revision a handler must do nothing
    ///   it cannot do twice before its last ask. Asks awaited together (`join!`) are one
    ///   round. A call run as a task, or one a human approved, is not asked:
    ///   [`AskError::NotAvailable`].
    /// - Anywhere else (a provider loop, the driver, a test), nobody is asked:
    ///   [`AskError::NotAvailable`].
    ///
    /// So a handler written once handles the error and works everywhere. The call's time
    /// limit runs while the user answers, and the call keeps what it holds meanwhile (over
    /// MCP, the state's lock: the write lock for a tool that writes the state, so ask
    /// before a long wait only from a tool that reads it). What the user fills in is input
    /// like the model's: check it.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolset::context::Form;
    /// use toolset::{ToolContext, ToolError, tool};
    ///
    /// /// Book a table.
    /// #[tool(tier = "reversible")]
    /// async fn book(ctx: &ToolContext, restaurant: String) -> Result<String, ToolError> {
    ///     let form = Form::new(
    ///         format!("How many people at {restaurant}?"),
    ///         json!({
    ///             "type": "object",
    ///             "properties": { "people": { "type": "integer", "default": 2 } },
    ///             "required": ["people"],
    ///         }),
    ///     );
    ///     let people = match ctx.elicit(form).await {
    ///         Ok(answer) => answer
    ///             .accepted()
    ///             .and_then(|content| content.get("people")?.as_u64())
    ///             .ok_or_else(|| ToolError::failed("the user did not say how many"))?,
    ///         // Nobody to ask: the default the form would have shown.
    ///         Err(_) => 2,
    ///     };
    ///     Ok(format!("booked {restaurant} for {people}"))
    /// }
    /// ```
    pub async fn elicit(&self, form: Form) -> Result<FormAnswer, AskError> {
        match &self.asker {
            Some(asker) => asker.elicit(self.call_id(), form).await,
            None => Err(not_available(Asking::Elicitation)),
        }
    }

    /// Asks the client's model to complete `sampling` and waits for its answer (MCP
    /// `sampling/createMessage`): over MCP, to a client that declared the `sampling`
    /// capability (else [`AskError::NotDeclared`]), on 2026-07-28 and later by a round of
    /// `input_required` as [`elicit`](Self::elicit) says; outside MCP,
    /// [`AskError::NotAvailable`]. The client may show the request to its user and refuse
    /// it ([`AskError::Failed`]).
    pub async fn sample(&self, sampling: Sampling) -> Result<Sampled, AskError> {
        match &self.asker {
            Some(asker) => asker.sample(self.call_id(), sampling).await,
            None => Err(not_available(Asking::Sampling)),
        }
    }

    /// Reads the client's roots, the directories and files it lets servers work in (MCP
    /// `roots/list`): over MCP, from a client that declared the `roots` capability (else
    /// [`AskError::NotDeclared`]), on 2026-07-28 and later by a round of `input_required`
    /// under the key `roots`, as [`elicit`](Self::elicit) says; outside MCP,
    /// [`AskError::NotAvailable`].
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        match &self.asker {
            Some(asker) => asker.roots(self.call_id()).await,
            None => Err(not_available(Asking::Roots)),
        }
    }

    /// The host service of type `T`, if provided.
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id())
            .field("idempotency_key", &self.idempotency_key())
            .field("cancelled", &self.is_cancelled())
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("asker", &self.asker.is_some())
            .field("extensions", &self.extensions)
            .field("traced_content", &self.traced_content)
            .finish()
    }
}

/// The answer to an ask without an [`Asker`]: nobody to ask.
fn not_available(asking: Asking) -> AskError {
    AskError::NotAvailable {
        asking,
        why: crate::ask::NO_CLIENT,
    }
}

/// The target of a log message's `tracing` event ([`ToolContext::log`] without a sink).
const LOG_TARGET: &str = "toolset::tool_log";

/// Whether a `tracing` subscriber records the event of a message at `level`.
fn traced(level: LogLevel) -> bool {
    match level {
        LogLevel::Debug => tracing::event_enabled!(target: LOG_TARGET, tracing::Level::DEBUG),
        LogLevel::Info | LogLevel::Notice => {
            tracing::event_enabled!(target: LOG_TARGET, tracing::Level::INFO)
        }
        LogLevel::Warning => tracing::event_enabled!(target: LOG_TARGET, tracing::Level::WARN),
        _ => tracing::event_enabled!(target: LOG_TARGET, tracing::Level::ERROR),
    }
}

/// A log message as a `tracing` event. Written here, not in `trace.rs` (which owns the
/// pipeline's other events): `trace.rs` reads the context, so the context cannot call it.
fn trace_log(call_id: &str, level: LogLevel, data: &serde_json::Value) {
    let text = match data {
        serde_json::Value::String(text) => std::borrow::Cow::Borrowed(text.as_str()),
        other => std::borrow::Cow::Owned(other.to_string()),
    };
    let mcp_level = level.as_str();
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                target: LOG_TARGET,
                $level,
                gen_ai.tool.call.id = call_id,
                mcp.log.level = mcp_level,
                "{text}"
            )
        };
    }
    match level {
        LogLevel::Debug => event!(tracing::Level::DEBUG),
        LogLevel::Info | LogLevel::Notice => event!(tracing::Level::INFO),
        LogLevel::Warning => event!(tracing::Level::WARN),
        _ => event!(tracing::Level::ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recorder(Mutex<Vec<(String, f64)>>);
    impl ProgressSink for Recorder {
        fn report(&self, call_id: &str, progress: Progress) {
            self.0
                .lock()
                .unwrap()
                .push((call_id.to_owned(), progress.progress));
        }
    }

    #[test]
    fn progress_reaches_the_sink_with_the_call_id() {
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let ctx = ToolContext::default().with_progress(recorder.clone());
        ctx.for_call("c1").report_progress(0.5, Some(1.0), None);
        assert_eq!(*recorder.0.lock().unwrap(), vec![("c1".to_owned(), 0.5)]);
        // Nobody listening: nothing happens, nothing fails.
        ToolContext::default().report_progress(1.0, None, Some("done"));
    }

    struct Logs(Mutex<Vec<(String, LogLevel, serde_json::Value)>>);
    impl LogSink for Logs {
        fn level(&self) -> Option<LogLevel> {
            Some(LogLevel::Warning)
        }
        fn log(&self, call_id: &str, message: LogMessage) {
            self.0
                .lock()
                .unwrap()
                .push((call_id.to_owned(), message.level, message.data));
        }
    }

    #[test]
    fn a_sink_gets_the_messages_at_or_above_its_level_with_the_call_id() {
        let logs = Arc::new(Logs(Mutex::new(Vec::new())));
        let ctx = ToolContext::default().with_log(logs.clone()).for_call("c1");
        for level in LogLevel::ALL {
            ctx.log(level, level.as_str());
        }
        assert!(!ctx.log_enabled(LogLevel::Notice));
        assert!(ctx.log_enabled(LogLevel::Error));
        let got: Vec<_> = logs
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|(id, level, _)| (id.clone(), *level))
            .collect();
        let expected: Vec<_> = LogLevel::ALL[3..]
            .iter()
            .map(|level| ("c1".to_owned(), *level))
            .collect();
        assert_eq!(got, expected);
        // No sink and no subscriber: a level check, nothing fails.
        ToolContext::default().log(LogLevel::Emergency, serde_json::json!({"a": 1}));
    }

    #[test]
    fn extensions_are_found_by_type() {
        let ctx = ToolContext::default().with_extension(42_u32);
        assert_eq!(ctx.for_call("c").extension::<u32>(), Some(&42));
        assert!(ctx.extension::<String>().is_none());
    }
}
