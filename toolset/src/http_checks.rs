//! The checks an HTTP endpoint of toolset makes before anything else, shared by the MCP
//! server (`mcp/http/guard.rs`) and the approval console (`console/`): `Host` against DNS
//! rebinding (judged per connection, so a wildcard bind does not let `Host: localhost` in
//! from afar), `Origin` same-origin unless allowed, and a secret compared in constant time.

use axum::http::{HeaderMap, header};
use std::net::{IpAddr, SocketAddr};

/// The two ends of the TCP connection a request came in on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Connection {
    /// The server's address the client connected to; `None` when not known (the service
    /// mounted in the host's router).
    pub(crate) local: Option<SocketAddr>,
    /// The client's address.
    pub(crate) peer: SocketAddr,
}

/// `Host` is one configured, the address the connection came in on, or a loopback name
/// on a connection from loopback.
pub(crate) fn host_allowed(host: &str, connection: Connection, allowed: &[String]) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let name = host_name(&host);
    // An entry with a port matches that host and port; one without, any port.
    if allowed.iter().any(|entry| {
        let entry = entry.to_ascii_lowercase();
        entry == host || entry == name
    }) {
        return true;
    }
    let bracketed = |ip: IpAddr| match ip {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    if let Some(local) = connection.local
        && (name == bracketed(local.ip()) || name == local.ip().to_string())
    {
        return true;
    }
    // An IPv4 client of a dual-stack socket shows as `::ffff:127.0.0.1`.
    let from_loopback = connection.peer.ip().to_canonical().is_loopback();
    from_loopback && matches!(name, "localhost" | "127.0.0.1" | "[::1]")
}

/// The name part of a `Host` value, without its port.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|byte| byte.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `Origin` is the server's own (`http://{Host}`) or one allowed.
pub(crate) fn origin_allowed(origin: &str, host: &str, allowed: &[String]) -> bool {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    let host = host.trim().to_ascii_lowercase();
    origin == format!("http://{host}")
        || allowed.iter().any(|entry| {
            entry
                .trim()
                .trim_end_matches('/')
                .eq_ignore_ascii_case(&origin)
        })
}

/// Whether `Authorization` is `Bearer {token}`, compared in constant time.
pub(crate) fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, rest) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(rest.trim())
        })
    else {
        return false;
    };
    same_secret(given, token)
}

/// Whether `given` is `secret`, compared in constant time (the length leaks; the content
/// does not).
pub(crate) fn same_secret(given: &str, secret: &str) -> bool {
    let (given, secret) = (given.as_bytes(), secret.as_bytes());
    given.len() == secret.len()
        && given
            .iter()
            .zip(secret)
            .fold(0_u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn connection(local: &str, peer: &str) -> Connection {
        Connection {
            local: Some(local.parse().expect("an address")),
            peer: peer.parse().expect("an address"),
        }
    }

    #[test]
    fn a_loopback_host_name_passes_only_from_a_loopback_peer() {
        let from_afar = connection("10.0.0.5:8931", "203.0.113.9:5000");
        assert!(!host_allowed("localhost:8931", from_afar, &[]));
        assert!(!host_allowed("127.0.0.1", from_afar, &[]));
        let local = connection("127.0.0.1:8931", "127.0.0.1:5000");
        assert!(host_allowed("localhost:8931", local, &[]));
        assert!(host_allowed("127.0.0.1:8931", local, &[]));
    }

    #[test]
    fn the_address_the_connection_came_in_on_passes() {
        let wildcard = connection("10.0.0.5:8931", "203.0.113.9:5000");
        assert!(host_allowed("10.0.0.5:8931", wildcard, &[]));
        assert!(!host_allowed("10.0.0.6:8931", wildcard, &[]));
        assert!(!host_allowed("evil.example", wildcard, &[]));
        assert!(host_allowed(
            "mcp.example.com",
            wildcard,
            &["mcp.example.com".into()]
        ));
        let v6 = connection("[::1]:8931", "[::1]:5000");
        assert!(host_allowed("[::1]:8931", v6, &[]));
    }

    #[test]
    fn only_the_servers_own_origin_passes_by_default() {
        assert!(origin_allowed(
            "http://localhost:8931",
            "localhost:8931",
            &[]
        ));
        assert!(!origin_allowed(
            "http://evil.example",
            "localhost:8931",
            &[]
        ));
        assert!(!origin_allowed(
            "http://localhost:9999",
            "localhost:8931",
            &[]
        ));
        assert!(origin_allowed(
            "https://app.example.com",
            "localhost:8931",
            &["https://app.example.com".into()]
        ));
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let mut headers = HeaderMap::new();
        assert!(!bearer_matches(&headers, "s3cret"));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cret"),
        );
        assert!(bearer_matches(&headers, "s3cret"));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cres"),
        );
        assert!(!bearer_matches(&headers, "s3cret"));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic s3cret"),
        );
        assert!(!bearer_matches(&headers, "s3cret"));
    }
}
