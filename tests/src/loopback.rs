//! A server on a fresh loopback port for the length of a test: the tests that speak raw
//! HTTP to an MCP server (headers, the stateless revision, SSE polling) start theirs here.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use toolset::mcp::HttpConfig;

/// A server listening on a loopback port until this is dropped: its address.
pub struct Loopback {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Dropped with the `Loopback`, which shuts the server down.
    _stop: oneshot::Sender<()>,
}

impl Loopback {
    /// Its MCP endpoint, `http://<addr>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// Spawns `serve` (an `McpServer::serve_http` and its like) on a fresh loopback port with
/// `config`, told to shut down when the returned [`Loopback`] is dropped.
pub async fn serve_http<F, Served>(config: HttpConfig, serve: F) -> Loopback
where
    F: FnOnce(TcpListener, HttpConfig) -> Served,
    Served: Future<Output = io::Result<()>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    let (stop, stopped) = oneshot::channel::<()>();
    let config = config.with_shutdown(async {
        let _ = stopped.await;
    });
    tokio::spawn(serve(listener, config));
    Loopback { addr, _stop: stop }
}
