//! The streamable HTTP transport of [`McpServer`]: rmcp's `StreamableHttpService` behind
//! hyper, hardened ([`HttpConfig`]): capped connections and sessions, deadlines for the
//! whole header and the whole body of every request, idle sessions expired, `Host` and
//! `Origin` checked, bearer or any `tower` authentication, no unauthenticated serving
//! beyond loopback unless asked, and a JSON-RPC error for a body that is no JSON-RPC
//! message (`junk.rs`).

mod config;
mod events;
mod guard;
mod junk;
mod listener;
mod sessions;

pub use config::HttpConfig;

use super::McpServer;
use crate::set::ToolSet;
use guard::Guard;
use rmcp::ServerHandler;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sessions::CappedSessions;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::Layer;

/// The path [`McpServer::serve_http`] answers MCP requests on.
pub const DEFAULT_HTTP_PATH: &str = "/mcp";

/// Where [`McpServer::serve_http`] listens: an already bound [`TcpListener`] (a
/// [`std::net::TcpListener`] too, set non-blocking here), or an address to bind (a
/// [`SocketAddr`], `"127.0.0.1:8931"` as `&str` or `String`, `(ip, port)`).
pub trait Listen: Send {
    /// The bound listener.
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send;
}

impl Listen for TcpListener {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        std::future::ready(Ok(self))
    }
}

impl Listen for std::net::TcpListener {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        std::future::ready(
            self.set_nonblocking(true)
                .and_then(|()| TcpListener::from_std(self)),
        )
    }
}

impl Listen for SocketAddr {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        TcpListener::bind(self)
    }
}

impl Listen for (IpAddr, u16) {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        TcpListener::bind(self)
    }
}

impl Listen for &str {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        TcpListener::bind(self.to_owned())
    }
}

impl Listen for String {
    fn listener(self) -> impl Future<Output = io::Result<TcpListener>> + Send {
        TcpListener::bind(self)
    }
}

impl<T: ToolSet> McpServer<T> {
    /// Serves the set over streamable HTTP at `/mcp` ([`DEFAULT_HTTP_PATH`]) on `listen`
    /// (a bound listener or an address to bind, see [`Listen`]) under `config`, until
    /// `config`'s [shutdown](HttpConfig::with_shutdown) completes (then open sessions are
    /// closed and this returns), or forever without one.
    ///
    /// Fails at once, with [`io::ErrorKind::PermissionDenied`], when the listener is bound
    /// to a non-loopback address (a wildcard one included) and `config` has no
    /// authentication, unless it [allows that](HttpConfig::allow_unauthenticated_remote).
    ///
    /// ```no_run
    /// # use toolset::{tool, toolset};
    /// # pub struct Notes(Vec<String>);
    /// # /// List the notes.
    /// # #[tool(tier = "read_only")]
    /// # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
    /// # toolset! { /// Notes.
    /// #   pub NoteTools<Notes> = [list]; }
    /// use toolset::mcp::{HttpConfig, McpServer};
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// McpServer::<NoteTools>::new(Notes(Vec::new()))
    ///     .serve_http("127.0.0.1:8931", HttpConfig::new())
    ///     .await
    /// # }
    /// ```
    pub async fn serve_http(self, listen: impl Listen, config: HttpConfig) -> io::Result<()> {
        serve_sessions(move || self.for_new_session(), listen, config).await
    }

    /// The server as a tower service speaking MCP streamable HTTP, to mount in a router
    /// of your own (`axum::Router::new().nest_service("/mcp", service)`): every HTTP
    /// session shares this server's state, behind `config`'s `Host`, `Origin` and bearer
    /// checks, its layers, body limits and session cap.
    ///
    /// The `Host` check needs the client's address: serve your router with axum's
    /// `into_make_service_with_connect_info::<SocketAddr>()` (a request without it is
    /// answered `500`). The address the client connected to is not known here, so only
    /// the loopback names (from a loopback client) and `config`'s
    /// [allowed hosts](HttpConfig::with_allowed_hosts) pass. What belongs to the listener
    /// is yours: the connection cap, the header deadline, the non-loopback binding check
    /// and the shutdown (stop serving the router). Prefer
    /// [`serve_http`](McpServer::serve_http), which does all of it.
    pub fn http_service(self, config: HttpConfig) -> axum::Router {
        sessions_service(move || self.for_new_session(), &config)
    }
}

/// Serves the sessions `new_session` makes (a set's server, or a host's server with a set
/// mounted in it) over streamable HTTP at [`DEFAULT_HTTP_PATH`] on `listen`, under
/// `config`: what [`McpServer::serve_http`] does.
pub(super) async fn serve_sessions<S: ServerHandler>(
    new_session: impl Fn() -> S + Send + Sync + 'static,
    listen: impl Listen,
    config: HttpConfig,
) -> io::Result<()> {
    let listener = listen.listener().await?;
    let local = listener.local_addr()?;
    config
        .check_binding(local)
        .map_err(|problem| io::Error::new(io::ErrorKind::PermissionDenied, problem))?;
    let stop = CancellationToken::new();
    let app = http_router(new_session, &config, stop.child_token(), DEFAULT_HTTP_PATH);
    let shutdown = config.shutdown.clone();
    let shutdown = async move {
        match shutdown {
            Some(shutdown) => shutdown.await,
            None => std::future::pending().await,
        }
    };
    let served = listener::serve(listener, app, &config, shutdown).await;
    stop.cancel();
    served
}

/// The sessions `new_session` makes as a tower service to mount in the host's router:
/// what [`McpServer::http_service`] gives.
pub(super) fn sessions_service<S: ServerHandler>(
    new_session: impl Fn() -> S + Send + Sync + 'static,
    config: &HttpConfig,
) -> axum::Router {
    // Nothing stops the sessions but their clients and the idle timeout.
    http_router(new_session, config, CancellationToken::new(), "/")
}

/// The MCP endpoint at `path`, a session from `new_session` for each HTTP session, behind
/// `config`'s checks and layers; `stop` closes its sessions.
fn http_router<S: ServerHandler>(
    new_session: impl Fn() -> S + Send + Sync + 'static,
    config: &HttpConfig,
    stop: CancellationToken,
    path: &str,
) -> axum::Router {
    let sessions = Arc::new(CappedSessions::new(
        config.max_sessions,
        config.session_idle_timeout,
        config.sse_polling,
    ));
    // Hosts and origins are checked by the guard, per connection.
    let rmcp_config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_sse_keep_alive(config.sse_keep_alive)
        .with_max_request_body_bytes(config.max_body_bytes)
        .with_cancellation_token(stop);
    let service = StreamableHttpService::new(
        move || Ok(new_session()),
        Arc::clone(&sessions),
        rmcp_config,
    );
    // Innermost, on rmcp's service itself: what reaches it is a JSON-RPC message.
    let service = axum::middleware::from_fn_with_state(config.max_body_bytes, junk::answer_junk)
        .layer(service);
    let service = axum::middleware::from_fn(session_ended).layer(service);
    let guard = Arc::new(Guard {
        config: config.clone(),
        sessions,
    });
    // Innermost, next to rmcp: the body read whole, and the session cap.
    let router = if path == "/" {
        axum::Router::new().fallback_service(service)
    } else {
        axum::Router::new().nest_service(path, service)
    };
    let mut router = router.layer(axum::middleware::from_fn_with_state(
        Arc::clone(&guard),
        guard::whole_body,
    ));
    for layer in &config.layers {
        router = layer(router);
    }
    // Outermost: hosts, origins, the bearer token and the body's deadline.
    router.layer(axum::middleware::from_fn_with_state(guard, guard::check))
}

/// A session ended by the client's DELETE is answered `204 No Content`: it is closed by
/// then, and the Python SDK's client warns on any success but `200` and `204` (rmcp answers
/// `202 Accepted`).
async fn session_ended(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let deleting = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if deleting && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
    }
    response
}
