//! The streamable HTTP transport of [`McpServer`]: rmcp's `StreamableHttpService` behind
//! hyper, hardened ([`HttpConfig`]): capped connections and sessions, deadlines for the
//! whole header and the whole body of every request, idle sessions expired, `Host` and
//! `Origin` checked, bearer or any `tower` authentication, and no unauthenticated serving
//! beyond loopback unless asked.

mod config;
mod guard;
mod listener;
mod sessions;

pub use config::HttpConfig;

use super::McpServer;
use crate::ToolSet;
use guard::Guard;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sessions::CappedSessions;
use std::future::Future;
use std::io;
use std::sync::Arc;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

/// The path [`McpServer::serve_http`] answers MCP requests on.
pub const DEFAULT_HTTP_PATH: &str = "/mcp";

impl<T: ToolSet> McpServer<T> {
    /// The server as rmcp's bare tower service speaking MCP streamable HTTP, to mount in
    /// a router of your own (e.g. `axum::Router::new().nest_service("/mcp", service)`).
    ///
    /// Every HTTP session shares this server's state. `config` sets sessions, allowed
    /// hosts and origins, keep-alives and the shutdown token; its default only accepts
    /// requests addressed to a loopback host. None of [`HttpConfig`]'s limits and checks
    /// apply here, and a call whose session was deleted may still start (rmcp cancels
    /// it a few seconds later): prefer [`McpServer::serve_http_with`].
    pub fn http_service(
        self,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<Self, LocalSessionManager> {
        StreamableHttpService::new(
            move || Ok(self.for_new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves the set over streamable HTTP at `http://{addr}/mcp`, with the default
    /// [`HttpConfig`], until the process ends.
    ///
    /// Binding a non-loopback address fails: the default has no authentication; use
    /// [`McpServer::serve_http_with`] with a bearer token or an auth layer.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        self.serve_http_with(listener, HttpConfig::default(), std::future::pending())
            .await
    }

    /// Serves the set over streamable HTTP at `/mcp` on an already bound `listener`, with
    /// the default [`HttpConfig`], until `shutdown` completes (then open sessions are
    /// closed and this returns).
    pub async fn serve_http_on(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        self.serve_http_with(listener, HttpConfig::default(), shutdown)
            .await
    }

    /// Serves the set over streamable HTTP at `/mcp` on `listener` under `config`, until
    /// `shutdown` completes (then open sessions are closed and this returns).
    ///
    /// Fails at once, with [`io::ErrorKind::PermissionDenied`], when `listener` is bound
    /// to a non-loopback address (a wildcard one included) and `config` has no
    /// authentication, unless it [allows that](HttpConfig::allow_unauthenticated_remote).
    pub async fn serve_http_with(
        self,
        listener: TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let local = listener.local_addr()?;
        config
            .check_binding(local)
            .map_err(|problem| io::Error::new(io::ErrorKind::PermissionDenied, problem))?;
        let stop = CancellationToken::new();
        let app = self.http_router(&config, stop.child_token());
        let served = listener::serve(listener, app, &config, shutdown).await;
        stop.cancel();
        served
    }

    /// The MCP endpoint at [`DEFAULT_HTTP_PATH`] behind `config`'s checks and layers.
    fn http_router(self, config: &HttpConfig, stop: CancellationToken) -> axum::Router {
        let sessions = Arc::new(CappedSessions::new(
            config.max_sessions,
            config.session_idle_timeout,
        ));
        // Hosts and origins are checked by the guard, per connection.
        let rmcp_config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_sse_keep_alive(config.sse_keep_alive)
            .with_max_request_body_bytes(config.max_body_bytes)
            .with_cancellation_token(stop);
        let service = StreamableHttpService::new(
            move || Ok(self.for_new_session()),
            Arc::clone(&sessions),
            rmcp_config,
        );
        let guard = Arc::new(Guard {
            config: config.clone(),
            sessions,
        });
        // Innermost, next to rmcp: the body read whole, and the session cap.
        let mut router = axum::Router::new()
            .nest_service(DEFAULT_HTTP_PATH, service)
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&guard),
                guard::whole_body,
            ));
        for layer in &config.layers {
            router = layer(router);
        }
        // Outermost: hosts, origins, the bearer token and the body's deadline.
        router.layer(axum::middleware::from_fn_with_state(guard, guard::check))
    }
}
