//! The per-call context a handler may take as `&ToolContext`: call id, cancellation,
//! progress and host services.

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
            .field("extensions", &self.extensions)
            .field("traced_content", &self.traced_content)
            .finish()
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

    #[test]
    fn extensions_are_found_by_type() {
        let ctx = ToolContext::default().with_extension(42_u32);
        assert_eq!(ctx.for_call("c").extension::<u32>(), Some(&42));
        assert!(ctx.extension::<String>().is_none());
    }
}
