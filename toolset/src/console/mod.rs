//! The approval console: the human's side of toolset as one web page a host mounts
//! (feature `console`). It lists the proposals that wait (their tool, tier, arguments as
//! signed, preview, why they were held, expiry), the calls a crash left in doubt, and a
//! conversation's pending calls, late results and exposure; approves, declines and
//! resolves, each once, through the host's [`Driver`] (the one path the command line
//! takes too).
//!
//! The page signs the digest it showed: approving sends it back, and a proposal changed
//! since is refused ([`ApprovalError::ArgumentsChanged`](crate::approval::ApprovalError)),
//! never approved blind. Access is closed by default (`access.rs`): a bearer token (or the
//! token once in the page's URL, traded for a session cookie), or the host's own check of
//! a request, or, only when the host says so, any client on loopback; every state-changing
//! request carries the session's CSRF token and a same-origin `Origin`; `Host` and
//! `Origin` are checked as the MCP server checks them (`http_checks.rs`); every response
//! carries a Content-Security-Policy without inline script. The page (`page/`) renders
//! every value with `textContent`.

mod access;
mod api;
mod state;

pub use access::Check;
pub use state::ConsoleState;

use crate::driver::Driver;
use crate::set::ToolSet;
use crate::store::Store;
use access::Access;
use axum::Router;
use axum::http::HeaderMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// The approval console over a [`Driver`] and the host's state: an axum [`Router`] to
/// mount ([`router`](Self::router)) or serve ([`serve`](Self::serve)).
///
/// Refuses every request until the host says who may come in: a token
/// ([`with_token`](Self::with_token)), its own check ([`authenticated_by`](Self::authenticated_by)),
/// or, on loopback only, anyone ([`open_on_loopback`](Self::open_on_loopback)).
///
/// ```no_run
/// # use toolset::{Autonomy, Driver, MemoryStore, tool, toolset};
/// # use toolset::prelude::*;
/// # use std::sync::Arc;
/// # /// Send a note.
/// # #[tool(tier = "irreversible")]
/// # async fn send(/// The note.
/// #     note: String) -> String { note }
/// # toolset! { Notes = [send]; }
/// use toolset::console::{Console, random_token};
/// # async fn host() -> std::io::Result<()> {
/// let driver = Arc::new(Driver::new(Notes::policy(Autonomy::ReadOnly), MemoryStore::new()));
/// let token = random_token();
/// let console = Console::new(driver, tokio::sync::Mutex::new(())).with_token(&token);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// println!("http://{}/?token={token}", listener.local_addr()?);
/// console.serve(listener).await
/// # }
/// ```
pub struct Console<T: ToolSet, S, C> {
    driver: Arc<Driver<T, S>>,
    state: Arc<C>,
    access: Access,
}

impl<T: ToolSet, S, C> fmt::Debug for Console<T, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Console")
            .field("set", &T::NAME)
            .field("access", &self.access)
            .finish_non_exhaustive()
    }
}

impl<T, S, C> Console<T, S, C>
where
    T: ToolSet + 'static,
    T::State: Send,
    S: Store + Send + Sync + 'static,
    C: ConsoleState<T>,
{
    /// A console over `driver`'s proposals, journal and runs, running approved calls
    /// against the state `state` lends. Closed to everyone until an access method opens it.
    pub fn new(driver: Arc<Driver<T, S>>, state: C) -> Self {
        Console {
            driver,
            state: Arc::new(state),
            access: Access::default(),
        }
    }

    /// Lets in a request carrying `Authorization: Bearer <token>`, and a browser that
    /// opens the page once as `/?token=<token>` (traded for a session cookie, and the
    /// token taken out of the address bar). Use [`random_token`].
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.access.token = Some(token.into());
        self
    }

    /// Lets in a request the host's `check` accepts (its own session cookie, say): the
    /// console then keeps a session of its own for the CSRF token.
    pub fn authenticated_by(
        mut self,
        check: impl Fn(&HeaderMap) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.access.check = Some(Arc::new(check));
        self
    }

    /// Lets in, without credentials, a client connecting from loopback (never one from
    /// afar): for a console only its own machine reaches. Not behind a reverse proxy on
    /// the same machine: every client it forwards comes from loopback.
    pub fn open_on_loopback(mut self) -> Self {
        self.access.open_on_loopback = true;
        self
    }

    /// Also accepts these `Host` values (a name a proxy forwards), beyond the address the
    /// console listens on and, from loopback, the loopback names.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.access.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Also accepts these `Origin` values (`https://console.example.com`) beyond the
    /// console's own.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.access.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The console as a router to mount. Serve it with
    /// `into_make_service_with_connect_info::<SocketAddr>()`: the `Host` check needs each
    /// request's client address (a request without it is refused).
    pub fn router(self) -> Router {
        self.router_at(None)
    }

    fn router_at(self, local: Option<SocketAddr>) -> Router {
        let access = Arc::new(self.access.listening_on(local));
        api::routes(self.driver, self.state, access)
    }

    /// Serves the console on `listener` until the listener fails.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let local = listener.local_addr()?;
        let app = self.router_at(Some(local));
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    }
}

/// A fresh random token (256 bits from the operating system, as 64 hex digits) for
/// [`Console::with_token`].
pub fn random_token() -> String {
    access::random_secret()
}
