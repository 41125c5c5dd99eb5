//! The streamable HTTP transport of [`McpServer`], through rmcp's `StreamableHttpService`
//! mounted in an axum router.

use super::McpServer;
use crate::ToolSet;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::{TcpListener, ToSocketAddrs};

/// The path [`McpServer::serve_http`] answers MCP requests on.
pub const DEFAULT_HTTP_PATH: &str = "/mcp";

impl<T: ToolSet> McpServer<T> {
    /// The server as a tower service speaking MCP streamable HTTP, to mount in a router of
    /// your own (e.g. `axum::Router::new().nest_service("/mcp", service)`).
    ///
    /// Every HTTP session shares this server's state. `config` sets sessions, allowed
    /// hosts and origins, keep-alives and the shutdown token; its default only accepts
    /// requests addressed to a loopback host.
    pub fn http_service(
        self,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<Self, LocalSessionManager> {
        StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves the set over streamable HTTP at `http://{addr}/mcp` until the process
    /// ends.
    ///
    /// Requests must be addressed to a loopback host or to the bound address itself
    /// (DNS-rebinding protection); use [`McpServer::http_service`] to choose otherwise.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        self.serve_http_on(listener, std::future::pending()).await
    }

    /// Serves the set over streamable HTTP at `/mcp` on an already bound `listener`, until
    /// `shutdown` completes (then open sessions are closed and this returns).
    pub async fn serve_http_on(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let local = listener.local_addr()?;
        let stop = tokio_util::sync::CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(allowed_hosts(local))
            .with_cancellation_token(stop.child_token());
        let router = axum::Router::new().nest_service(DEFAULT_HTTP_PATH, self.http_service(config));
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await
    }
}

/// The `Host` values accepted: loopback names, and the bound address itself.
fn allowed_hosts(local: SocketAddr) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    let ip = local.ip();
    if !ip.is_unspecified() && !ip.is_loopback() {
        hosts.push(ip.to_string());
        hosts.push(local.to_string());
    }
    hosts
}
