//! rmcp's in-memory session manager with a cap on open sessions, each session's
//! transport [watched](crate::mcp::presence) so its calls stop when it closes, and, when
//! asked ([`HttpConfig::with_sse_polling`](super::HttpConfig::with_sse_polling)), a call's
//! stream closed after a while for the client to resume (SEP-1699).

use super::super::messages;
use super::super::presence::Watched;
use futures_util::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a client whose call's stream was closed waits before it resumes.
const RESUME_AFTER: Duration = Duration::from_secs(1);

/// [`LocalSessionManager`] holding at most `max` sessions.
pub(crate) struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// How long a call's stream stays open before it is closed for the client to resume;
    /// `None`: until the call answers.
    polling: Option<Duration>,
    /// Sessions created and not yet closed, reserved before they are created.
    count: AtomicUsize,
    open: Mutex<HashSet<SessionId>>,
}

/// Why a session operation failed.
#[derive(Debug)]
pub(crate) enum SessionsError {
    /// The cap is reached.
    Full(usize),
    /// rmcp's session manager failed.
    Local(LocalSessionManagerError),
}

impl fmt::Display for SessionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionsError::Full(max) => f.write_str(&messages::too_many_sessions(*max)),
            SessionsError::Local(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SessionsError {}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(error: LocalSessionManagerError) -> Self {
        SessionsError::Local(error)
    }
}

impl CappedSessions {
    /// At most `max` sessions, each closed after `idle` without a request; a call's
    /// stream closed after `polling`, when set.
    pub(crate) fn new(max: usize, idle: Duration, polling: Option<Duration>) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        // A closed stream's client comes back after its `retry`: its call's events wait.
        if let Some(hold) = polling {
            inner = inner.with_event_store(Arc::new(super::events::RecentEvents::new(hold)));
        }
        CappedSessions {
            inner,
            max,
            polling,
            count: AtomicUsize::new(0),
            open: Mutex::new(HashSet::new()),
        }
    }

    /// How many sessions are open.
    pub(crate) fn len(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Whether a new session would be refused.
    pub(crate) fn is_full(&self) -> bool {
        self.len() >= self.max
    }

    /// Takes a slot, or fails when none is left.
    fn reserve(&self) -> Result<(), SessionsError> {
        let taken = self.count.fetch_add(1, Ordering::AcqRel);
        if taken >= self.max {
            self.count.fetch_sub(1, Ordering::AcqRel);
            return Err(SessionsError::Full(self.max));
        }
        Ok(())
    }

    fn release(&self) {
        self.count.fetch_sub(1, Ordering::AcqRel);
    }

    fn opened(&self, id: &SessionId) {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone());
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = Watched<WorkerTransport<LocalSessionWorker>>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.reserve()?;
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                self.opened(&id);
                Ok((id, Watched::new(transport)))
            }
            Err(error) => {
                self.release();
                Err(error.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Called on DELETE and again when the session's worker ends: release once.
        let was_open = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        if was_open {
            self.release();
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let Some(hold) = self.polling else {
            return Ok(self.inner.create_stream(id, message).await?.left_stream());
        };
        // rmcp's `create_stream`, with the stream's request id kept to close it by.
        let handle = self
            .inner
            .sessions
            .read()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| LocalSessionManagerError::SessionNotFound(id.clone()))?;
        let receiver = handle
            .establish_request_wise_channel()
            .await
            .map_err(LocalSessionManagerError::from)?;
        let request = receiver.http_request_id;
        handle
            .push_message(message, request)
            .await
            .map_err(LocalSessionManagerError::from)?;
        let answered = CancellationToken::new();
        if let Some(request) = request {
            let answered = answered.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = answered.cancelled() => {}
                    () = tokio::time::sleep(hold) => {
                        // The session keeps what the call sends next, for the GET that
                        // resumes after `retry`.
                        let _ = handle.close_sse_stream(request, Some(RESUME_AFTER)).await;
                    }
                }
            });
        }
        // The stream ends when the call answered (or was closed): the timer with it.
        let mut inner = receiver.inner;
        let guard = answered.drop_guard();
        let stream = futures_util::stream::poll_fn(move |cx| {
            let _ending_stops_the_timer = &guard;
            inner.poll_recv(cx)
        });
        Ok(stream.right_stream())
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.reserve()?;
        match self.inner.restore_session(id.clone()).await {
            Ok(RestoreOutcome::Restored(transport)) => {
                self.opened(&id);
                Ok(RestoreOutcome::Restored(Watched::new(transport)))
            }
            Ok(RestoreOutcome::AlreadyPresent) => {
                self.release();
                Ok(RestoreOutcome::AlreadyPresent)
            }
            Ok(_) => {
                self.release();
                Ok(RestoreOutcome::NotSupported)
            }
            Err(error) => {
                self.release();
                Err(error.into())
            }
        }
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
