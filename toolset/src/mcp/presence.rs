//! Knowing when a client has gone: a transport wrapper that marks every request it
//! receives with its connection's [`Presence`], cancelled as soon as the connection ends
//! (stdin closed, HTTP session deleted or expired, transport dropped).
//!
//! rmcp cancels a request's token only after its service loop has drained in-flight
//! handlers (up to 5 s after the transport closed), long enough for a queued write to
//! start for a client that is no longer there. The server checks this mark instead,
//! before a call starts and while it runs.

use rmcp::RoleServer;
use rmcp::model::GetExtensions;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::future::Future;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Cancelled when the connection a request came in on has ended.
#[derive(Clone, Debug)]
pub(crate) struct Presence(pub(crate) CancellationToken);

impl Presence {
    /// Whether the client's connection has ended.
    pub(crate) fn is_gone(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Completes when the client's connection ends.
    pub(crate) async fn gone(&self) {
        self.0.cancelled().await;
    }
}

/// A server transport whose requests carry its [`Presence`].
pub(crate) struct Watched<Tr> {
    inner: Tr,
    presence: Presence,
    /// Marks the client gone when rmcp drops the transport without reading its end.
    _gone_on_drop: DropGuard,
}

impl<Tr> Watched<Tr> {
    /// Wraps `inner`; its requests' presence ends with it.
    pub(crate) fn new(inner: Tr) -> Self {
        let token = CancellationToken::new();
        Watched {
            inner,
            _gone_on_drop: token.clone().drop_guard(),
            presence: Presence(token),
        }
    }
}

impl<Tr: Transport<RoleServer>> Transport<RoleServer> for Watched<Tr> {
    type Error = Tr::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        let presence = &self.presence;
        let received = self.inner.receive();
        async move {
            let mut message = received.await;
            match &mut message {
                None => presence.0.cancel(),
                Some(rmcp::model::JsonRpcMessage::Request(request)) => {
                    request.request.extensions_mut().insert(presence.clone());
                }
                Some(_) => {}
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.presence.0.cancel();
        self.inner.close()
    }
}
