//! The approval console's doors, tried with raw HTTP requests (reqwest, redirects off,
//! every header set by hand as an attacker would): who gets in, from where, and which
//! changes are taken. Every refusal is checked beside the same request made right, which
//! succeeds, so no test passes because the console refuses everything.

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Client, Response, StatusCode, redirect};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use toolset::MemoryStore;
use toolset::console::{Console, random_token};
use toolset_tests::console::{self as fixture, ConsoleTools, SharedOutbox};

/// A console over a memory store with one `send` waiting, behind `token`.
struct Served {
    address: SocketAddr,
    token: String,
    outbox: SharedOutbox,
    proposal: String,
    digest: String,
}

async fn served(
    open: impl FnOnce(
        Console<ConsoleTools, MemoryStore, SharedOutbox>,
        &str,
    ) -> Console<ConsoleTools, MemoryStore, SharedOutbox>,
) -> Served {
    let driver = Arc::new(fixture::driver(MemoryStore::new()));
    let proposal = fixture::propose(&driver, &[("ana@example.com", "the report")])
        .await
        .remove(0);
    let outbox = SharedOutbox::default();
    let token = random_token();
    let console = open(Console::new(driver, outbox.clone()), &token);
    Served {
        address: fixture::serve(console).await,
        token,
        outbox,
        proposal: proposal.id().as_str().to_owned(),
        digest: proposal.digest(),
    }
}

async fn with_token() -> Served {
    served(|console, token| console.with_token(token)).await
}

fn client() -> Client {
    Client::builder()
        .redirect(redirect::Policy::none())
        .build()
        .expect("a client")
}

impl Served {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    fn origin(&self) -> String {
        format!("http://{}", self.address)
    }

    /// A session as a browser gets one: the token in the page's URL, traded for a cookie;
    /// then the CSRF token the page asks for. The `Cookie` header to send, and the token.
    async fn session(&self) -> (String, String) {
        let login = client()
            .get(self.url(&format!("/?token={}", self.token)))
            .send()
            .await
            .expect("answered");
        assert_eq!(login.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            login.headers()["location"],
            "/",
            "the token leaves the address bar"
        );
        let set_cookie = login.headers()["set-cookie"]
            .to_str()
            .expect("text")
            .to_owned();
        assert!(
            set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Strict"),
            "{set_cookie}"
        );
        let cookie = set_cookie.split(';').next().expect("a pair").to_owned();
        let csrf = client()
            .get(self.url("/api/session"))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("answered");
        assert_eq!(csrf.status(), StatusCode::OK);
        let csrf = json_of(csrf).await["csrf"]
            .as_str()
            .expect("a token")
            .to_owned();
        (cookie, csrf)
    }

    /// `POST /api/proposals/{id}/approve` with the digest shown and the given headers.
    async fn approve(&self, headers: HeaderMap) -> Response {
        client()
            .post(self.url(&format!("/api/proposals/{}/approve", self.proposal)))
            .headers(headers)
            .header("content-type", "application/json")
            .body(json!({"digest": self.digest}).to_string())
            .send()
            .await
            .expect("answered")
    }

    async fn runs(&self) -> usize {
        self.outbox.lock().await.sent.len()
    }
}

async fn json_of(response: Response) -> Value {
    serde_json::from_str(&response.text().await.expect("a body")).expect("JSON")
}

fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        headers.insert(*name, HeaderValue::from_str(value).expect("a header value"));
    }
    headers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_credentials_or_with_a_wrong_token_is_refused_and_the_right_token_gets_in()
 {
    let served = with_token().await;
    let bare = client()
        .get(served.url("/api/state"))
        .send()
        .await
        .expect("answered");
    assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);
    assert!(
        bare.text().await.expect("text").contains("token"),
        "the refusal says what to send"
    );
    let page = client()
        .get(served.url("/"))
        .send()
        .await
        .expect("answered");
    assert_eq!(page.status(), StatusCode::UNAUTHORIZED, "not even the page");
    let wrong = client()
        .get(served.url("/api/state"))
        .bearer_auth("0".repeat(64))
        .send()
        .await
        .expect("answered");
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let wrong_in_url = client()
        .get(served.url(&format!("/?token={}", "0".repeat(64))))
        .send()
        .await
        .expect("answered");
    assert_eq!(wrong_in_url.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong_in_url.headers().get("set-cookie").is_none());
    let forged_cookie = client()
        .get(served.url("/api/state"))
        .header(
            "cookie",
            format!(
                "toolset_console_{}={}",
                served.address.port(),
                "0".repeat(64)
            ),
        )
        .send()
        .await
        .expect("answered");
    assert_eq!(forged_cookie.status(), StatusCode::UNAUTHORIZED);

    let right = client()
        .get(served.url("/api/state"))
        .bearer_auth(&served.token)
        .send()
        .await
        .expect("answered");
    assert_eq!(right.status(), StatusCode::OK);
    let state = json_of(right).await;
    assert_eq!(state["proposals"][0]["id"], served.proposal.as_str());
    assert_eq!(
        state["proposals"][0]["reasons"][0]["kind"], "tier",
        "why it was held"
    );
    assert_eq!(
        state["proposals"][0]["arguments"],
        r#"{"to":"ana@example.com","body":"the report"}"#
    );
    let (cookie, _) = served.session().await;
    let by_cookie = client()
        .get(served.url("/api/state"))
        .header("cookie", cookie)
        .send()
        .await
        .expect("answered");
    assert_eq!(by_cookie.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_the_host_opened_to_nobody_refuses_even_loopback() {
    let closed = served(|console, _| console).await;
    let refused = client()
        .get(closed.url("/api/state"))
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let open = served(|console, _| console.open_on_loopback()).await;
    let admitted = client()
        .get(open.url("/api/state"))
        .send()
        .await
        .expect("answered");
    assert_eq!(
        admitted.status(),
        StatusCode::OK,
        "loopback, when the host says so"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_own_check_lets_in_what_it_accepts_and_nothing_else() {
    let served = served(|console, _| {
        console.authenticated_by(|headers| {
            headers.get("x-host-user").is_some_and(|user| user == "ana")
        })
    })
    .await;
    let ana = client()
        .get(served.url("/api/state"))
        .header("x-host-user", "ana")
        .send()
        .await
        .expect("answered");
    assert_eq!(ana.status(), StatusCode::OK);
    let eve = client()
        .get(served.url("/api/state"))
        .header("x-host-user", "eve")
        .send()
        .await
        .expect("answered");
    assert_eq!(eve.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_or_origin_is_refused_even_with_the_token() {
    let served = with_token().await;
    let rebound = client()
        .get(served.url("/api/state"))
        .bearer_auth(&served.token)
        .header("host", "evil.example")
        .send()
        .await
        .expect("answered");
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "DNS rebinding");
    let foreign = client()
        .get(served.url("/api/state"))
        .bearer_auth(&served.token)
        .header("origin", "http://evil.example")
        .send()
        .await
        .expect("answered");
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    let own = client()
        .get(served.url("/api/state"))
        .bearer_auth(&served.token)
        .header("origin", served.origin())
        .header("host", format!("localhost:{}", served.address.port()))
        .send()
        .await
        .expect("answered");
    // Host localhost:port, Origin 127.0.0.1:port: not the same origin.
    assert_eq!(own.status(), StatusCode::FORBIDDEN);
    let own = client()
        .get(served.url("/api/state"))
        .bearer_auth(&served.token)
        .header("origin", served.origin())
        .send()
        .await
        .expect("answered");
    assert_eq!(own.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_without_the_sessions_csrf_token_or_from_another_origin_never_runs() {
    let served = with_token().await;
    let (cookie, csrf) = served.session().await;
    let origin = served.origin();
    let refusals = [
        (
            "no CSRF token",
            headers(&[("cookie", &cookie), ("origin", &origin)]),
        ),
        (
            "a wrong CSRF token",
            headers(&[
                ("cookie", &cookie),
                ("origin", &origin),
                ("x-toolset-csrf", &"0".repeat(64)),
            ]),
        ),
        (
            "another origin",
            headers(&[
                ("cookie", &cookie),
                ("origin", "http://evil.example"),
                ("x-toolset-csrf", &csrf),
            ]),
        ),
        (
            "no Origin",
            headers(&[("cookie", &cookie), ("x-toolset-csrf", &csrf)]),
        ),
        (
            "the bearer token but no session",
            headers(&[
                ("authorization", &format!("Bearer {}", served.token)),
                ("origin", &origin),
                ("x-toolset-csrf", &csrf),
            ]),
        ),
    ];
    for (what, headers) in refusals {
        let answer = served.approve(headers).await;
        assert!(
            matches!(
                answer.status(),
                StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED
            ),
            "{what}: {}",
            answer.status()
        );
        assert_eq!(served.runs().await, 0, "{what}: nothing ran");
    }
    let right = served
        .approve(headers(&[
            ("cookie", &cookie),
            ("origin", &origin),
            ("x-toolset-csrf", &csrf),
        ]))
        .await;
    assert_eq!(right.status(), StatusCode::OK);
    let answer = json_of(right).await;
    assert_eq!(answer["ran"], true);
    assert_eq!(
        answer["results"][0]["text"],
        "sent to ana@example.com (message 1)"
    );
    assert_eq!(served.runs().await, 1);
    let again = served
        .approve(headers(&[
            ("cookie", &cookie),
            ("origin", &origin),
            ("x-toolset-csrf", &csrf),
        ]))
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert!(
        json_of(again).await["error"]
            .as_str()
            .expect("a message")
            .contains("already approved")
    );
    assert_eq!(served.runs().await, 1, "never twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_forbids_inline_script_framing_and_sniffing() {
    let served = with_token().await;
    for (path, token) in [
        ("/", true),
        ("/console.js", true),
        ("/api/state", false),
        ("/api/state", true),
    ] {
        let mut request = client().get(served.url(path));
        if token {
            request = request.bearer_auth(&served.token);
        }
        let answer = request.send().await.expect("answered");
        let header = |name: &str| {
            answer
                .headers()
                .get(name)
                .map(|value| value.to_str().expect("text").to_owned())
        };
        let csp = header("content-security-policy").unwrap_or_default();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{path}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(
            header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"), "{path}");
    }
    let page = client()
        .get(served.url("/"))
        .bearer_auth(&served.token)
        .send()
        .await
        .expect("answered");
    let html = page.text().await.expect("text");
    assert!(
        !html.contains("<script>") && html.contains(r#"<script src="/console.js""#),
        "no inline script"
    );
}
