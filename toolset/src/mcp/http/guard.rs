//! The checks every HTTP request passes before it reaches rmcp. Outside the host's layers
//! ([`check`]): `Host` (DNS rebinding, judged per connection so a wildcard bind does not
//! let `Host: localhost` in from afar), `Origin` (same-origin unless allowed), the bearer
//! token, and the body's deadline, set on the body itself so that whoever reads it (a
//! host's layer included) is held to it. Inside them, next to rmcp ([`whole_body`]): the
//! body read whole within the size cap, and the session cap.

use super::super::messages;
use super::config::HttpConfig;
use super::sessions::CappedSessions;
use crate::http_checks::{Connection, bearer_matches, host_allowed, origin_allowed};
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use hyper::body::{Frame, SizeHint};
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::time::{Instant, Sleep};

/// What the checks need.
pub(crate) struct Guard {
    pub(crate) config: HttpConfig,
    pub(crate) sessions: Arc<CappedSessions>,
}

/// The header carrying the MCP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// Runs the checks, in order, then the request with the body's deadline on its body.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    // The request's headers have just been read: the whole body is due within the body
    // read timeout from now, however it is paced.
    let body_due = Instant::now() + guard.config.body_read_timeout;
    let extensions = request.extensions();
    let connection = extensions.get::<Connection>().copied().or_else(|| {
        // Mounted in the host's router: the client's address, as axum's connect info.
        extensions
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|info| Connection {
                local: None,
                peer: info.0,
            })
    });
    let Some(connection) = connection else {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            messages::NO_CONNECTION_INFO,
        );
    };
    let headers = request.headers();
    let Some(host) = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
    else {
        return refuse(StatusCode::BAD_REQUEST, messages::MISSING_HOST);
    };
    if !host_allowed(host, connection, &guard.config.allowed_hosts) {
        return refuse(StatusCode::FORBIDDEN, &messages::foreign_host(host));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !origin_allowed(origin, host, &guard.config.allowed_origins) {
            return refuse(StatusCode::FORBIDDEN, &messages::foreign_origin(origin));
        }
    }
    if let Some(token) = &guard.config.bearer_token
        && !bearer_matches(headers, token)
    {
        let mut response = refuse(StatusCode::UNAUTHORIZED, messages::UNAUTHENTICATED);
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"mcp\""),
        );
        return response;
    }
    let request = request.map(|body| Body::new(DeadlineBody::new(body, body_due)));
    next.run(request).await
}

/// Next to rmcp, inside the host's layers: reads the body whole (within its deadline and
/// the size cap), applies the session cap, then the request.
pub(crate) async fn whole_body(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let opens_session =
        request.method() == Method::POST && !request.headers().contains_key(SESSION_HEADER);
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body, &parts.headers, guard.config.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(unread) => return unread.response(&guard.config),
    };
    if opens_session
        && guard.sessions.is_full()
        && let Some(refusal) = refuse_initialize_when_full(&bytes, &guard)
    {
        return refusal;
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Why a request's body was not read.
#[derive(Debug)]
enum Unread {
    /// The whole body did not arrive before its deadline.
    TooSlow,
    /// It is larger than the cap (as announced by `Content-Length`, or as sent).
    TooLarge,
    /// The connection broke or the framing was wrong.
    Broken,
}

impl Unread {
    /// The answer: `408` (the connection is closed, so its slot frees), `413` or `400`.
    fn response(&self, config: &HttpConfig) -> Response {
        let (status, text) = match self {
            Unread::TooSlow => (
                StatusCode::REQUEST_TIMEOUT,
                messages::body_too_slow(config.body_read_timeout),
            ),
            Unread::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                messages::body_too_large(config.max_body_bytes),
            ),
            Unread::Broken => (
                StatusCode::BAD_REQUEST,
                messages::UNREADABLE_BODY.to_owned(),
            ),
        };
        let mut response = (status, text).into_response();
        // The rest of an unread body is still on the connection: it cannot carry another
        // request, so it is closed once the answer is written.
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }
}

/// A request body that fails once its deadline passes: the deadline bounds the whole
/// body, not the gap between two of its pieces, so a client trickling a byte at a time
/// cannot hold the connection past it.
struct DeadlineBody {
    inner: Body,
    due: Pin<Box<Sleep>>,
}

impl DeadlineBody {
    fn new(inner: Body, due: Instant) -> Self {
        DeadlineBody {
            inner,
            due: Box::pin(tokio::time::sleep_until(due)),
        }
    }
}

/// The error of a body whose deadline passed.
#[derive(Debug)]
struct BodyTooSlow;

impl fmt::Display for BodyTooSlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the request body did not arrive whole before its deadline")
    }
}

impl std::error::Error for BodyTooSlow {}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::BoxError>>> {
        let this = &mut *self;
        if this.due.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTooSlow))));
        }
        Pin::new(&mut this.inner)
            .poll_frame(cx)
            .map_err(axum::BoxError::from)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Reads the whole body, at most `max` bytes (its deadline is on the body, from
/// [`check`]).
async fn read_body(body: Body, headers: &HeaderMap, max: usize) -> Result<Bytes, Unread> {
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > max as u64) {
        return Err(Unread::TooLarge);
    }
    let mut chunks = body.into_data_stream();
    let mut whole: Vec<u8> = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|error| {
            if error.into_inner().is::<BodyTooSlow>() {
                Unread::TooSlow
            } else {
                Unread::Broken
            }
        })?;
        if whole.len().saturating_add(chunk.len()) > max {
            return Err(Unread::TooLarge);
        }
        whole.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(whole))
}

/// At the session cap, an `initialize` is refused with a JSON-RPC error; any other
/// session-less POST (a stateless request) goes on (`None`).
fn refuse_initialize_when_full(bytes: &[u8], guard: &Guard) -> Option<Response> {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<serde_json::Value>,
        method: Option<String>,
    }
    match serde_json::from_slice::<Head>(bytes) {
        Ok(Head {
            id,
            method: Some(method),
        }) if method == "initialize" => {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": -32000, "message": messages::too_many_sessions(guard.config.max_sessions)},
            });
            let mut response = (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CONTENT_TYPE, "application/json")],
                error.to_string(),
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            Some(response)
        }
        _ => None,
    }
}

/// A plain-text refusal.
fn refuse(status: StatusCode, text: &str) -> Response {
    (status, text.to_owned()).into_response()
}
