//! What reaches rmcp's streamable HTTP service is a JSON-RPC message: a POSTed JSON body
//! that is not one is answered here (`400`, the JSON-RPC error `incoming.rs` makes: `-32700`
//! or `-32600` saying what was wrong, with the request's id when one can be read), where
//! rmcp answers a bare `415 Unsupported Media Type`. A `tools/call` whose arguments hold a
//! number no reader can hold goes on without them, their text on the HTTP request for the
//! server's gate. A request whose `MCP-Protocol-Version` header names a revision that
//! removed its method (2026-07-28: `initialize`, `logging/setLevel`, ...) is answered
//! `404` with `-32601`, whatever its params.
//!
//! Layered on rmcp's service itself, inside every other check: the body has been read
//! whole within its cap (`guard::whole_body`), and a request for another path never gets
//! here.

use super::super::handler::REMOVED_IN_2026_07_28;
use super::super::incoming::{self, ArgumentsText, Incoming, Refusal};
use super::super::messages;
use super::super::messages::Unit;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, JsonRpcMessage, ProtocolVersion};

/// Answers a POSTed JSON body that is not a JSON-RPC message; passes anything else on, a
/// `tools/call` with unreadable numbers in its arguments rewritten without them.
/// `max_body_bytes` bounds the body, already read whole by then.
pub(crate) async fn answer_junk(
    State(max_body_bytes): State<usize>,
    request: Request,
    next: Next,
) -> Response {
    if !posts_json(&request) {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body_bytes).await else {
        return (StatusCode::BAD_REQUEST, messages::UNREADABLE_BODY).into_response();
    };
    let bytes = match incoming::read(&bytes, Unit::Body) {
        Incoming::Message(message) => match removed(&parts, &message) {
            Some(refusal) => return not_found(&refusal),
            None => bytes,
        },
        Incoming::CallWithArgumentsText(message, arguments) => {
            match without_arguments(&mut parts, &message, arguments) {
                Some(rewritten) => rewritten,
                None => {
                    return (StatusCode::INTERNAL_SERVER_ERROR, messages::UNWRITABLE_CALL)
                        .into_response();
                }
            }
        }
        Incoming::Refused(refusal) => return refused(&refusal),
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The body of `message`, the `tools/call` without its arguments, with their text put on
/// the HTTP request (`parts`) for the server's gate, where the request context carries
/// it; `None` if the message does not serialize.
fn without_arguments(
    parts: &mut axum::http::request::Parts,
    message: &rmcp::model::ClientJsonRpcMessage,
    arguments: ArgumentsText,
) -> Option<Bytes> {
    let body = serde_json::to_vec(message).ok()?;
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    parts.extensions.insert(arguments);
    Some(Bytes::from(body))
}

/// Whether `request`'s body is meant to be a JSON-RPC message: a POST whose
/// `Content-Type` is JSON. Another content type is refused by rmcp with `415`, whatever
/// the body, as the streamable HTTP transport asks; so is an `Accept` header without JSON
/// and event streams, with `406`, for a body that parses (a junk body gets its JSON-RPC
/// error first).
fn posts_json(request: &Request) -> bool {
    request.method() == Method::POST
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The refusal of a request whose `MCP-Protocol-Version` header names a revision that
/// removed its method (`initialize`, `logging/setLevel`, ... in 2026-07-28): the method
/// does not exist there, so `-32601`, whatever its params. rmcp would take a well-formed
/// `initialize` for a handshake and answer it `200`.
fn removed(parts: &axum::http::request::Parts, message: &ClientJsonRpcMessage) -> Option<Refusal> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let method = request.request.method();
    let revision = parts.headers.get("mcp-protocol-version")?.to_str().ok()?;
    // A revision rmcp knows, without the handshake; an unknown one is rmcp's to refuse.
    let stateless = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|known| known.as_str() == revision && !known.has_initialize());
    let removed = stateless && REMOVED_IN_2026_07_28.contains(&method);
    removed.then(|| Refusal {
        id: Some(request.id.clone()),
        code: ErrorCode::METHOD_NOT_FOUND,
        message: messages::removed_method(method),
        notification: false,
    })
}

/// The answer to a request for a method its revision does not have: `404`, the JSON-RPC
/// error as its body.
fn not_found(refusal: &Refusal) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "application/json")],
        refusal.to_json(),
    )
        .into_response()
}

/// The answer to a body that is not a JSON-RPC message: `400`, the JSON-RPC error as its
/// body.
fn refused(refusal: &Refusal) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        refusal.to_json(),
    )
        .into_response()
}
