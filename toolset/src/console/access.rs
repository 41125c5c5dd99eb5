//! Who may use the console, and the headers every answer carries: `Host` and `Origin`
//! (the MCP server's checks, `http_checks.rs`), then the caller (a session cookie, the
//! bearer token, the token once in the page's URL, the host's check, or loopback when the
//! host opened it), then, for every request that changes something, the session's CSRF
//! token in a header and a same-origin `Origin`. Fails closed: without a way in configured,
//! nobody gets in.

use crate::http_checks::{Connection, bearer_matches, host_allowed, origin_allowed, same_secret};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A host's check of a request (its own session cookie, a header its proxy sets): `true`
/// lets the request in.
pub type Check = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// The session cookie's name, before the port.
const COOKIE: &str = "toolset_console";
/// The header the page sends its CSRF token in.
pub(super) const CSRF_HEADER: &str = "x-toolset-csrf";
/// How long a session lasts.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// The most sessions kept; the oldest goes first.
const MAX_SESSIONS: usize = 1024;

/// The Content-Security-Policy of every answer: the page's own script and style only, no
/// inline script, no framing, no form posts, fetches to itself.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Who may come in, and the sessions of those who did.
#[derive(Default)]
pub(super) struct Access {
    pub(super) token: Option<String>,
    pub(super) check: Option<Check>,
    pub(super) open_on_loopback: bool,
    pub(super) allowed_hosts: Vec<String>,
    pub(super) allowed_origins: Vec<String>,
    /// The address the console listens on, when it serves itself.
    local: Option<SocketAddr>,
    sessions: Mutex<HashMap<String, Session>>,
}

impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Access")
            .field("token", &self.token.as_ref().map(|_| "…"))
            .field("check", &self.check.is_some())
            .field("open_on_loopback", &self.open_on_loopback)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .finish_non_exhaustive()
    }
}

/// A browser's session: its CSRF token, and when it began.
struct Session {
    csrf: String,
    began: Instant,
}

/// A request's session, as the handlers see it: its CSRF token for the page.
#[derive(Clone, Debug)]
pub(super) struct SessionCsrf(pub(super) String);

impl Access {
    pub(super) fn listening_on(mut self, local: Option<SocketAddr>) -> Self {
        self.local = local;
        self
    }

    /// The session the request's cookie names, if it is one of ours and not too old.
    fn session(&self, headers: &HeaderMap) -> Option<(String, String)> {
        let host = headers.get(header::HOST)?.to_str().ok()?;
        let id = cookie(headers, &cookie_name(host))?;
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions.get(id)?;
        (session.began.elapsed() < SESSION_LIFETIME).then(|| (id.to_owned(), session.csrf.clone()))
    }

    /// A new session: its id (for the cookie) and CSRF token.
    fn open_session(&self) -> (String, String) {
        let (id, csrf) = (random_secret(), random_secret());
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, session| session.began.elapsed() < SESSION_LIFETIME);
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, session)| session.began)
                .map(|(id, _)| id.clone())
        {
            sessions.remove(&oldest);
        }
        sessions.insert(
            id.clone(),
            Session {
                csrf: csrf.clone(),
                began: Instant::now(),
            },
        );
        (id, csrf)
    }
}

/// 256 random bits from the operating system, as 64 hex digits.
pub(super) fn random_secret() -> String {
    crate::digest::random_hex::<32>("a console secret")
}

/// The value of the cookie `name`.
fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then_some(value)
        })
}

/// The `token` of the query string, if any.
fn query_token(request: &Request) -> Option<&str> {
    request.uri().query()?.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == "token").then_some(value)
    })
}

/// Every check, in order, then the request, then the security headers on the answer.
pub(super) async fn check(
    State(access): State<Arc<Access>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = admit(&access, request, next).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

async fn admit(access: &Access, mut request: Request, next: Next) -> Response {
    let Some(ConnectInfo(peer)) = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .copied()
    else {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request carries no client address: serve the console's router with `into_make_service_with_connect_info::<SocketAddr>()`, or call Console::serve",
        );
    };
    let connection = Connection {
        local: access.local,
        peer,
    };
    let headers = request.headers();
    let Some(host) = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
    else {
        return refuse(StatusCode::BAD_REQUEST, "a Host header is required");
    };
    if !host_allowed(&host, connection, &access.allowed_hosts) {
        return refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "Host {host:?} is not this console's: open it at the address it listens on, or add the name with Console::with_allowed_hosts"
            ),
        );
    }
    let origin = headers
        .get(header::ORIGIN)
        .map(|value| value.to_str().unwrap_or_default());
    if let Some(origin) = origin
        && !origin_allowed(origin, &host, &access.allowed_origins)
    {
        return refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "requests from the origin {origin:?} are not allowed: open the console at its own address, or add the origin with Console::with_allowed_origins"
            ),
        );
    }
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD);
    let session = access.session(headers);
    if changes {
        // A change needs a session (so a CSRF token) and a same-origin Origin: a page of
        // another site can send neither.
        let Some((_, csrf)) = &session else {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "no console session: open the console page first (it starts one)",
            );
        };
        if origin.is_none() {
            return refuse(
                StatusCode::FORBIDDEN,
                "a change needs an Origin header (a browser sends it): send the console's own origin",
            );
        }
        let given = headers
            .get(CSRF_HEADER)
            .and_then(|value| value.to_str().ok());
        if !given.is_some_and(|given| same_secret(given, csrf)) {
            return refuse(
                StatusCode::FORBIDDEN,
                "the CSRF token is missing or wrong: reload the console page and try again",
            );
        }
    }
    if let Some((_, csrf)) = session {
        request.extensions_mut().insert(SessionCsrf(csrf));
        return next.run(request).await;
    }
    let token = access.token.as_deref();
    // The token once in the page's URL: traded for a session, then out of the address bar.
    if request.method() == Method::GET
        && request.uri().path() == "/"
        && let (Some(given), Some(token)) = (query_token(&request), token)
    {
        if !same_secret(given, token) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "the token in the address is wrong: open the URL the host printed",
            );
        }
        let (id, _) = access.open_session();
        let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
        set_cookie(&mut response, &host, &id);
        return response;
    }
    let admitted = token.is_some_and(|token| bearer_matches(headers, token))
        || access.check.as_ref().is_some_and(|check| check(headers))
        || (access.open_on_loopback && peer.ip().to_canonical().is_loopback());
    if !admitted {
        let mut response = refuse(
            StatusCode::UNAUTHORIZED,
            "not signed in to the console: open the URL with the token the host printed, or send `Authorization: Bearer <token>`",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"toolset console\""),
        );
        return response;
    }
    // Admitted without a session: the page (or a client asking for its CSRF token) begins
    // one; any other request goes on without.
    if !matches!(request.uri().path(), "/" | "/api/session") {
        return next.run(request).await;
    }
    let (id, csrf) = access.open_session();
    request.extensions_mut().insert(SessionCsrf(csrf));
    let mut response = next.run(request).await;
    set_cookie(&mut response, &host, &id);
    response
}

/// The session cookie's name for a console reached at `host`: a browser sends a host's
/// cookies to every port of it, so two consoles on one machine (two replicas, say) would
/// each overwrite the other's session under one name.
fn cookie_name(host: &str) -> String {
    match host.rsplit_once(':') {
        Some((_, port)) if !port.is_empty() && port.bytes().all(|byte| byte.is_ascii_digit()) => {
            format!("{COOKIE}_{port}")
        }
        _ => COOKIE.to_owned(),
    }
}

/// Gives the browser the session `id` for the console at `host`: never readable by
/// script, never sent by another site's request.
fn set_cookie(response: &mut Response, host: &str, id: &str) {
    let name = cookie_name(host);
    // `name` is letters, digits and `_`, `id` is hex: always a valid header value.
    if let Ok(value) =
        HeaderValue::from_str(&format!("{name}={id}; HttpOnly; SameSite=Strict; Path=/"))
    {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

/// A plain-text refusal.
fn refuse(status: StatusCode, text: &str) -> Response {
    (status, text.to_owned()).into_response()
}
