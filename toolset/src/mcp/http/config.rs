//! [`HttpConfig`]: the limits, checks and authentication of the streamable HTTP server,
//! secure by default.

use super::super::messages;
use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::Route;
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tower::{Layer, Service};

/// How [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) serves: caps,
/// timeouts, which `Host` and `Origin` values are accepted, who may call, and when to stop.
///
/// The defaults hold for a server on a developer's machine: loopback `Host` names only
/// from loopback peers, no browser origin but the server's own, bounded connections and
/// sessions, a deadline for each request's whole headers and whole body (so a request is
/// read within 40 s however slowly it is sent), and no authentication, which is only
/// allowed on a loopback address: binding any other address without
/// [`with_bearer_token`](Self::with_bearer_token) or
/// [`with_auth_layer`](Self::with_auth_layer) is refused unless
/// [`allow_unauthenticated_remote`](Self::allow_unauthenticated_remote) says so.
#[derive(Clone)]
pub struct HttpConfig {
    pub(crate) max_connections: usize,
    pub(crate) max_sessions: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_body_bytes: usize,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) bearer_token: Option<Arc<str>>,
    pub(crate) auth_layered: bool,
    pub(crate) unauthenticated_remote: bool,
    pub(crate) sse_keep_alive: Option<Duration>,
    pub(crate) sse_polling: Option<Duration>,
    pub(crate) layers: Vec<RouterLayer>,
    pub(crate) shutdown: Option<Shutdown>,
}

/// The signal that stops serving, shared by the config's clones.
pub(crate) type Shutdown = Shared<BoxFuture<'static, ()>>;

/// A layer the caller mounted around the MCP endpoint, applied to the router.
pub(crate) type RouterLayer = Arc<dyn Fn(Router) -> Router + Send + Sync>;

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            max_connections: 512,
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(300),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_body_bytes: 4 * 1024 * 1024,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            bearer_token: None,
            auth_layered: false,
            unauthenticated_remote: false,
            sse_keep_alive: Some(Duration::from_secs(15)),
            sse_polling: None,
            layers: Vec::new(),
            shutdown: None,
        }
    }
}

impl HttpConfig {
    /// The defaults; see [`HttpConfig`].
    pub fn new() -> Self {
        HttpConfig::default()
    }

    /// At most `max` open TCP connections (512 by default); one more is answered
    /// `503 Service Unavailable` with `Retry-After` and closed.
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// At most `max` MCP sessions at once (1024 by default); an `initialize` beyond it is
    /// answered `503` with a JSON-RPC error saying so. A session ends when its client
    /// deletes it or after [`with_session_idle_timeout`](Self::with_session_idle_timeout),
    /// which frees its slot and its memory.
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// A session without any request for this long is closed (5 minutes by default).
    pub fn with_session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle_timeout = idle;
        self
    }

    /// A deadline for a request's whole headers (10 s by default): it starts when the
    /// connection begins waiting for a request (when it opens, and after each answer on a
    /// kept-alive connection) and does not restart as bytes arrive, so headers trickled a
    /// byte at a time are cut off too. A connection that misses it is closed.
    ///
    /// With [`with_body_read_timeout`](Self::with_body_read_timeout) this bounds the whole
    /// request: headers and body are read within the sum of the two.
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// A deadline for a request's whole body (30 s by default), counted from the end of
    /// its headers: the body must have arrived entirely by then, however it is paced (a
    /// client trickling a byte at a time does not restart it). A request that misses it
    /// is answered `408 Request Timeout` and its connection closed, which frees its slot
    /// under [`with_max_connections`](Self::with_max_connections).
    ///
    /// A whole request (headers and body) is therefore read within
    /// [`with_header_read_timeout`](Self::with_header_read_timeout) plus this.
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The largest request body accepted (4 MiB by default); a larger one is answered
    /// `413 Payload Too Large`.
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// `Host` values (`example.com` or `example.com:8443`) accepted besides the address
    /// a connection came in on, and the loopback names for connections from loopback.
    /// Needed behind a reverse proxy or a DNS name.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Browser origins (`https://app.example.com`, with a port when not the default)
    /// whose requests are accepted. By default only the server's own origins are;
    /// requests without an `Origin` header (non-browser clients) always pass.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Requires `Authorization: Bearer {token}` on every request; others get
    /// `401 Unauthorized` with `WWW-Authenticate: Bearer`.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Arc::from(token.into()));
        self
    }

    /// Mounts `layer` (any `tower` layer: an OAuth 2.1 resource-server check, a rate
    /// limit, tracing…) around the MCP endpoint, inside the connection, `Host`, `Origin`
    /// and bearer checks and outside the session cap, before the body is read: a layer
    /// that refuses a request costs no body read, and one that reads the body is held to
    /// [`with_body_read_timeout`](Self::with_body_read_timeout)'s deadline. See
    /// [`with_auth_layer`](Self::with_auth_layer) for one that authenticates.
    pub fn with_layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        self.layers
            .push(Arc::new(move |router: Router| router.layer(layer.clone())));
        self
    }

    /// Mounts `layer` as [`with_layer`](Self::with_layer) does, and counts it as
    /// authentication: the server may then bind a non-loopback address.
    pub fn with_auth_layer<L>(self, layer: L) -> Self
    where
        L: Layer<Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        let mut config = self.with_layer(layer);
        config.auth_layered = true;
        config
    }

    /// Lets the server bind a non-loopback address with no authentication at all.
    /// Anyone who can reach the port can then call the tools.
    pub fn allow_unauthenticated_remote(mut self) -> Self {
        self.unauthenticated_remote = true;
        self
    }

    /// How often an idle SSE stream gets a keep-alive comment (15 s by default; `None`
    /// for never).
    pub fn with_sse_keep_alive(mut self, every: Option<Duration>) -> Self {
        self.sse_keep_alive = every;
        self
    }

    /// Closes the SSE stream of a call (the answer to its POST, in a session) that has not
    /// answered within `hold`, telling the client to come back (SEP-1699): the stream ends
    /// with an event id and a `retry` of one second, the call runs on, and the client's GET
    /// with `Last-Event-ID` gets what the call sent since, its result included. For proxies
    /// and load balancers that cut long responses. Off by default: a stream stays open
    /// until its call answers. Clients of 2025-11-25 resume this way (the TypeScript, Python
    /// and rmcp clients do); a 2026-07-28 request has no session, so its stream is never
    /// closed.
    pub fn with_sse_polling(mut self, hold: Duration) -> Self {
        self.sse_polling = Some(hold);
        self
    }

    /// Serves until `signal` completes: then no connection is accepted any more, open
    /// sessions are closed, open connections get a few seconds to finish, and
    /// [`serve_http`](crate::mcp::McpServer::serve_http) returns. Without one it serves
    /// until the process ends.
    pub fn with_shutdown(mut self, signal: impl Future<Output = ()> + Send + 'static) -> Self {
        self.shutdown = Some(signal.boxed().shared());
        self
    }

    /// Whether requests must authenticate.
    pub(crate) fn authenticates(&self) -> bool {
        self.bearer_token.is_some() || self.auth_layered
    }

    /// Refuses to serve unauthenticated on a non-loopback address, unless allowed.
    pub(crate) fn check_binding(&self, local: SocketAddr) -> Result<(), String> {
        if local.ip().is_loopback() || self.authenticates() || self.unauthenticated_remote {
            Ok(())
        } else {
            Err(messages::unauthenticated_remote(local))
        }
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("max_connections", &self.max_connections)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            // Never the token itself.
            .field("bearer_token", &self.bearer_token.is_some())
            .field("auth_layered", &self.auth_layered)
            .field("unauthenticated_remote", &self.unauthenticated_remote)
            .field("layers", &self.layers.len())
            .field("shutdown", &self.shutdown.is_some())
            .finish()
    }
}
