//! The approval console's doors, tried with raw HTTP requests (reqwest, redirects off,
//! every header set by hand as an attacker would): who gets in, from where, and which
//! changes are taken. Every refusal is checked beside the same request made right, which
//! succeeds, so no test passes because the console refuses everything.

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Client, Response, StatusCode, redirect};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use toolset::console::{Console, random_token};
use toolset::{Driver, MemoryStore};
use toolset_tests::console::{self as fixture, ConsoleTools, SharedOutbox};

/// A console over a memory store with one `send` waiting, behind `token`.
struct Served {
    address: SocketAddr,
    token: String,
    outbox: SharedOutbox,
    driver: Arc<Driver<ConsoleTools, MemoryStore>>,
    proposal: String,
    digest: String,
    run: String,
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
    let console = open(Console::new(driver.clone(), outbox.clone()), &token);
    let run = driver
        .pending(proposal.id())
        .expect("waiting")
        .owner()
        .to_owned();
    Served {
        address: fixture::serve(console).await,
        token,
        outbox,
        driver,
        proposal: proposal.id().as_str().to_owned(),
        digest: proposal.digest(),
        // The stored copy names its run (the turn's copy was made before it was stored).
        run,
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

    /// `GET path` with the headers `pairs`, nothing else.
    async fn get(&self, path: &str, pairs: &[(&'static str, &str)]) -> Response {
        client()
            .get(self.url(path))
            .headers(headers(pairs))
            .send()
            .await
            .expect("answered")
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

/// `pairs` after `Authorization: {bearer}`.
fn with_bearer<'a>(
    bearer: &'a str,
    pairs: &[(&'static str, &'a str)],
) -> Vec<(&'static str, &'a str)> {
    let mut all = vec![("authorization", bearer)];
    all.extend_from_slice(pairs);
    all
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
    let wrong = "0".repeat(64);
    let bare = served.get("/api/state", &[]).await;
    assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);
    let said = bare.text().await.expect("text");
    assert!(
        said.contains("token"),
        "the refusal says what to send: {said}"
    );
    let page = served.get("/", &[]).await;
    assert_eq!(page.status(), StatusCode::UNAUTHORIZED, "not even the page");
    let bearer = format!("Bearer {wrong}");
    let by_wrong_token = served
        .get("/api/state", &[("authorization", &bearer)])
        .await;
    assert_eq!(by_wrong_token.status(), StatusCode::UNAUTHORIZED);
    let wrong_in_url = served.get(&format!("/?token={wrong}"), &[]).await;
    assert_eq!(wrong_in_url.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong_in_url.headers().get("set-cookie").is_none());
    let forged = format!("toolset_console_{}={wrong}", served.address.port());
    let by_forged_cookie = served.get("/api/state", &[("cookie", &forged)]).await;
    assert_eq!(by_forged_cookie.status(), StatusCode::UNAUTHORIZED);

    let bearer = format!("Bearer {}", served.token);
    let right = served
        .get("/api/state", &[("authorization", &bearer)])
        .await;
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
    let by_cookie = served.get("/api/state", &[("cookie", &cookie)]).await;
    assert_eq!(by_cookie.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_the_host_opened_to_nobody_refuses_even_loopback() {
    let closed = served(|console, _| console).await;
    let refused = closed.get("/api/state", &[]).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let open = served(|console, _| console.open_on_loopback()).await;
    let admitted = open.get("/api/state", &[]).await;
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
    let ana = served.get("/api/state", &[("x-host-user", "ana")]).await;
    assert_eq!(ana.status(), StatusCode::OK);
    let eve = served.get("/api/state", &[("x-host-user", "eve")]).await;
    assert_eq!(eve.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_or_origin_is_refused_even_with_the_token() {
    let served = with_token().await;
    let bearer = format!("Bearer {}", served.token);
    let rebound = served
        .get(
            "/api/state",
            &with_bearer(&bearer, &[("host", "evil.example")]),
        )
        .await;
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "DNS rebinding");
    let foreign = served
        .get(
            "/api/state",
            &with_bearer(&bearer, &[("origin", "http://evil.example")]),
        )
        .await;
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    let origin = served.origin();
    let localhost = format!("localhost:{}", served.address.port());
    // Host localhost:port, Origin 127.0.0.1:port: not the same origin.
    let crossed = served
        .get(
            "/api/state",
            &with_bearer(&bearer, &[("origin", &origin), ("host", &localhost)]),
        )
        .await;
    assert_eq!(crossed.status(), StatusCode::FORBIDDEN);
    let own = served
        .get("/api/state", &with_bearer(&bearer, &[("origin", &origin)]))
        .await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_filters_by_run_and_tool_and_a_decline_reaches_the_runs_late_results() {
    let served = with_token().await;
    let other = fixture::propose_one(&served.driver, "bo@example.com", "the minutes").await;
    let bearer = format!("Bearer {}", served.token);
    let auth = [("authorization", bearer.as_str())];
    let ids = |state: &Value| -> Vec<String> {
        state["proposals"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|proposal| proposal["id"].as_str().expect("an id").to_owned())
            .collect()
    };
    let all = json_of(served.get("/api/state", &auth).await).await;
    assert_eq!(ids(&all).len(), 2);
    assert_eq!(all["runs"].as_array().expect("runs").len(), 2);
    let of_run = json_of(
        served
            .get(&format!("/api/state?run={}", served.run), &auth)
            .await,
    )
    .await;
    assert_eq!(ids(&of_run), std::slice::from_ref(&served.proposal));
    let of_send = json_of(served.get("/api/state?tool=send", &auth).await).await;
    assert_eq!(ids(&of_send).len(), 2);
    let of_other = json_of(served.get("/api/state?tool=archive", &auth).await).await;
    assert!(ids(&of_other).is_empty());

    let run = json_of(
        served
            .get(&format!("/api/runs/{}", served.run), &auth)
            .await,
    )
    .await;
    assert_eq!(run["pending"][0]["proposal"], served.proposal.as_str());
    assert_eq!(run["late"].as_array().map(Vec::len), Some(0));

    let (cookie, csrf) = served.session().await;
    let origin = served.origin();
    let declined = client()
        .post(served.url(&format!("/api/proposals/{}/decline", served.proposal)))
        .headers(headers(&[
            ("cookie", &cookie),
            ("origin", &origin),
            ("x-toolset-csrf", &csrf),
        ]))
        .body(json!({"digest": served.digest, "reason": "not before the audit"}).to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(declined.status(), StatusCode::OK);
    let left = json_of(served.get("/api/state", &auth).await).await;
    assert_eq!(
        ids(&left),
        [other.id().as_str().to_owned()],
        "the declined one is gone"
    );
    // What the conversation's next request gives the model: the human's reason, once.
    let run = json_of(
        served
            .get(&format!("/api/runs/{}", served.run), &auth)
            .await,
    )
    .await;
    assert_eq!(run["pending"].as_array().map(Vec::len), Some(0));
    let told = run["late"][0]["text"].as_str().expect("a late result");
    assert!(told.contains("not before the audit"), "{told}");
    assert!(
        served.outbox.lock().await.sent.is_empty(),
        "a decline runs nothing"
    );
    let unknown = served.get("/api/runs/no-such-run", &auth).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_doubt_call_is_rerun_only_as_the_gate_allows_and_decided_once() {
    let served = with_token().await;
    fixture::in_doubt(&served.driver, "send-cut-off", "ana@example.com");
    let (cookie, csrf) = served.session().await;
    let origin = served.origin();
    let resolve = |verdict: &'static str, attempts: u32| {
        client()
            .post(served.url("/api/in-doubt/send-cut-off/resolve"))
            .headers(headers(&[
                ("cookie", &cookie),
                ("origin", &origin),
                ("x-toolset-csrf", &csrf),
            ]))
            .body(json!({"verdict": verdict, "attempts": attempts}).to_string())
            .send()
    };
    // The driver's policy holds `send` for a human: a re-run is no way around it.
    let rerun = resolve("rerun", 1).await.expect("answered");
    assert_eq!(rerun.status(), StatusCode::CONFLICT);
    let said = json_of(rerun).await["error"]
        .as_str()
        .expect("a message")
        .to_owned();
    assert!(said.contains("would propose it now"), "{said}");
    let stale = resolve("done", 2).await.expect("answered");
    assert_eq!(
        stale.status(),
        StatusCode::CONFLICT,
        "not the attempt the page listed"
    );
    let done = resolve("done", 1).await.expect("answered");
    assert_eq!(done.status(), StatusCode::OK);
    let told = json_of(done).await["told"]
        .as_str()
        .expect("told")
        .to_owned();
    assert!(told.contains("its result was lost"), "{told}");
    let again = resolve("failed", 1).await.expect("answered");
    assert_eq!(again.status(), StatusCode::CONFLICT, "decided once");
    assert!(served.outbox.lock().await.sent.is_empty(), "nothing ran");
}
