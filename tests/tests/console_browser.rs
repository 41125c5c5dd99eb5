//! The approval console in a real browser: Debian's Chromium, headless, driven through
//! chromedriver with the W3C WebDriver protocol.
//!
//! Why WebDriver over plain HTTP (reqwest, already in the build) rather than a crate:
//! WebDriver is a W3C standard of a dozen JSON endpoints, of which these tests use eight;
//! `fantoccini`, the field's WebDriver client, would add its own hyper client stack and
//! TLS for nothing here, and the DevTools protocol would need a websocket client
//! (`tokio-tungstenite`) and Chrome-specific commands for what WebDriver says in one
//! request (click an element, run a script, take a screenshot). Clicks are WebDriver's
//! element clicks: the browser's own input events on the rendered button.
//!
//! The browser and chromedriver come from `scripts/chromium` (which `scripts/test` runs);
//! found in PATH, or where `TOOLSET_CHROMIUM` and `TOOLSET_CHROMEDRIVER` point. Without
//! them each test says so and is skipped, unless `TOOLSET_REQUIRE_CHROMIUM` is set (as
//! `scripts/test` sets it): then it fails. Each test's browser gets a throwaway
//! `--user-data-dir` and is killed when the test ends, pass or fail (`Browser`'s `Drop`
//! kills chromedriver's whole process group, Chromium included).
//!
//! `TOOLSET_SCREENSHOT=overwrite` writes the README's screenshot, `docs/console.png`.

use base64::Engine;
use reqwest::Client;
use serde_json::{Value, json};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolset::console::{Console, random_token};
use toolset::store::{Ending, Store};
use toolset::{MemoryStore, PostgresStore, Proposal, SqliteStore};
use toolset_tests::console::{self as fixture, ConsoleTools, SharedOutbox};
use toolset_tests::postgres;

/// Set (to anything) where a missing browser must fail the tests.
const REQUIRE: &str = "TOOLSET_REQUIRE_CHROMIUM";
/// WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How long a test waits for the page to show something.
const PATIENCE: Duration = Duration::from_secs(20);

/// One browser at a time: two cores, and Chromium is heavy.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `name` as found: the variable `var`, or in PATH.
fn program(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(var).filter(|path| !path.is_empty()) {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}

/// A headless Chromium under chromedriver, with one WebDriver session; killed on drop.
struct Browser {
    /// Held while the browser lives.
    _one: tokio::sync::MutexGuard<'static, ()>,
    chromedriver: Child,
    profile: PathBuf,
    endpoint: String,
    session: String,
    http: Client,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The whole process group: chromedriver and every Chromium process it started.
        let group = format!("-{}", self.chromedriver.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    /// A fresh browser, or `None` (after saying why) when none is installed and none is
    /// required.
    async fn launch(test: &str) -> Option<Browser> {
        let one = ONE_BROWSER.lock().await;
        let (Some(chromium), Some(chromedriver)) = (
            program("TOOLSET_CHROMIUM", "chromium"),
            program("TOOLSET_CHROMEDRIVER", "chromedriver"),
        ) else {
            if std::env::var_os(REQUIRE).is_some() {
                panic!(
                    "{REQUIRE} is set but chromium or chromedriver is not installed: run the tests through scripts/test (or scripts/chromium <command>), which installs Debian's chromium and chromium-driver"
                );
            }
            // Past the test harness's capture, so a passing run shows it too.
            let _ = writeln!(
                std::io::stderr(),
                "skipped {test}: no chromium or chromedriver in PATH; run scripts/chromium to install them"
            );
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let profile = std::env::temp_dir().join(format!(
            "toolset-console-{test}-{}-{port}",
            std::process::id()
        ));
        std::fs::create_dir_all(&profile).expect("a profile dir");
        let mut command = Command::new(&chromedriver);
        command
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let chromedriver = command.spawn().expect("chromedriver starts");
        let mut browser = Browser {
            _one: one,
            chromedriver,
            profile,
            endpoint: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            http: Client::new(),
        };
        let ready = Instant::now() + PATIENCE;
        loop {
            let status = browser
                .http
                .get(format!("{}/status", browser.endpoint))
                .send()
                .await;
            if let Ok(status) = status
                && let Ok(text) = status.text().await
                && serde_json::from_str::<Value>(&text)
                    .is_ok_and(|value| value["value"]["ready"] == true)
            {
                break;
            }
            assert!(Instant::now() < ready, "chromedriver did not get ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--window-size=1100,1300",
                    format!("--user-data-dir={}", browser.profile.display()),
                ],
            },
        }}});
        let created = browser
            .command("POST", "/session", Some(capabilities))
            .await;
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {created}"))
            .to_owned();
        Some(browser)
    }

    /// One WebDriver command; its `value`. Panics on a WebDriver error.
    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.endpoint);
        let request = match method {
            "GET" => self.http.get(url),
            "DELETE" => self.http.delete(url),
            _ => self
                .http
                .post(url)
                .header("content-type", "application/json")
                .body(body.unwrap_or(json!({})).to_string()),
        };
        let answer = request.send().await.expect("chromedriver answers");
        let text = answer.text().await.expect("a body");
        let value: Value = serde_json::from_str(&text).expect("WebDriver JSON");
        let value = value["value"].clone();
        if let Some(error) = value.get("error") {
            panic!("WebDriver {method} {path}: {error}: {}", value["message"]);
        }
        value
    }

    async fn session_command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.command(method, &format!("/session/{}{path}", self.session), body)
            .await
    }

    async fn goto(&self, url: &str) {
        self.session_command("POST", "/url", Some(json!({"url": url})))
            .await;
    }

    /// Runs `script` (a function body) in the page; what it returns.
    async fn run(&self, script: &str) -> Value {
        self.session_command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Waits until `script` returns `true`; panics naming `what` after a while.
    async fn until(&self, what: &str, script: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if self.run(script).await == true {
                return;
            }
            assert!(Instant::now() < deadline, "the page never showed {what}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The WebDriver reference of the element `css` selects.
    async fn element(&self, css: &str) -> String {
        let found = self
            .session_command(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_owned()
    }

    /// Waits until the page has an element `css` selects.
    async fn shows(&self, what: &str, css: &str) {
        let script = format!("return document.querySelector({css:?}) !== null;");
        self.until(what, &script).await;
    }

    /// Waits until the page has no element `css` selects.
    async fn drops(&self, what: &str, css: &str) {
        let script = format!("return document.querySelector({css:?}) === null;");
        self.until(what, &script).await;
    }

    /// Clicks the element `css` selects, as a user would.
    async fn click(&self, css: &str) {
        let id = self.element(css).await;
        self.session_command("POST", &format!("/element/{id}/click"), None)
            .await;
    }

    /// Types `text` into the element `css` selects.
    async fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css).await;
        self.session_command(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({"text": text})),
        )
        .await;
    }

    /// Clicks Approve on `proposal`'s card; the result line the page then shows.
    async fn approve(&self, proposal: &Proposal) -> String {
        self.click(&format!("{} .approve", card(proposal))).await;
        result_of(self, &card(proposal)).await
    }

    /// Opens a new tab and switches to it; its handle.
    async fn new_tab(&self) -> String {
        let tab = self
            .session_command("POST", "/window/new", Some(json!({"type": "tab"})))
            .await;
        let handle = tab["handle"].as_str().expect("a handle").to_owned();
        self.switch_to(&handle).await;
        handle
    }

    async fn tab(&self) -> String {
        self.session_command("GET", "/window", None)
            .await
            .as_str()
            .expect("a handle")
            .to_owned()
    }

    async fn switch_to(&self, handle: &str) {
        self.session_command("POST", "/window", Some(json!({"handle": handle})))
            .await;
    }

    /// The page as a PNG.
    async fn screenshot(&self) -> Vec<u8> {
        let png = self.session_command("GET", "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(png.as_str().expect("base64"))
            .expect("a PNG")
    }

    /// Opens the console at `address` signed in with `token` (the URL a host prints), and
    /// waits for it to show `cards` proposals.
    async fn open_console(&self, address: SocketAddr, token: &str, cards: usize) {
        self.goto(&format!("http://{address}/?token={token}")).await;
        self.until(
            &format!("{cards} proposal(s)"),
            &format!("return document.querySelectorAll('#proposals .card').length === {cards};"),
        )
        .await;
    }
}

/// The CSS of proposal `id`'s card.
fn card(proposal: &Proposal) -> String {
    format!("#proposals .card[data-id='{}']", proposal.id())
}

/// The text of the result line of the card `css`, once it has one.
async fn result_of(browser: &Browser, css: &str) -> String {
    let script = format!("return document.querySelector(\"{css} .result\").textContent;");
    browser
        .until(
            "a result",
            &format!("return document.querySelector(\"{css} .result\").textContent.length > 0;"),
        )
        .await;
    browser
        .run(&script)
        .await
        .as_str()
        .expect("text")
        .to_owned()
}

/// A console over `store`, signed in by a fresh token; its driver, outbox, address, token.
async fn console<S: Store + Send + Sync + 'static>(
    store: S,
) -> (
    Arc<toolset::Driver<ConsoleTools, S>>,
    SharedOutbox,
    SocketAddr,
    String,
) {
    let driver = Arc::new(fixture::driver(store));
    let outbox = SharedOutbox::default();
    let token = random_token();
    let address =
        fixture::serve(Console::new(driver.clone(), outbox.clone()).with_token(&token)).await;
    (driver, outbox, address, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_approved_by_a_click_runs_once_and_the_page_shows_its_result() {
    let Some(browser) = Browser::launch("approved").await else {
        return;
    };
    let (driver, outbox, address, token) = console(MemoryStore::new()).await;
    let first = fixture::propose_one(&driver, "ana@example.com", "the report").await;
    browser.open_console(address, &token, 1).await;
    // Live: a proposal made after the page loaded appears without a reload.
    let second = fixture::propose_one(&driver, "bo@example.com", "the minutes").await;
    browser.shows("the new proposal", &card(&second)).await;

    let result = browser.approve(&first).await;
    assert!(
        result.contains("Approved and ran")
            && result.contains("sent to ana@example.com (message 1)"),
        "{result}"
    );
    assert_eq!(outbox.lock().await.sent, ["ana@example.com: the report"]);
    // The card is settled: its buttons are disabled, and a poll later it still shows
    // what happened; nothing ran again.
    assert_eq!(
        browser
            .run(&format!(
                "return document.querySelector(\"{} .approve\").disabled;",
                card(&first)
            ))
            .await,
        true
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(result_of(&browser, &card(&first)).await, result);
    assert_eq!(outbox.lock().await.sent.len(), 1, "approved once, run once");
    assert_eq!(
        driver.approvals().waiting().expect("listed").len(),
        1,
        "the other still waits"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_tabs_click_on_the_same_proposal_is_refused_and_a_proposal_resolved_elsewhere_disappears()
 {
    let Some(browser) = Browser::launch("second-tab").await else {
        return;
    };
    let (driver, outbox, address, token) = console(MemoryStore::new()).await;
    let proposal = fixture::propose_one(&driver, "ana@example.com", "the report").await;
    let first = browser.tab().await;
    browser.open_console(address, &token, 1).await;
    let second = browser.new_tab().await;
    browser.open_console(address, &token, 1).await;
    // The second tab's reviewer holds the list still while the first tab approves.
    browser.click("#live").await;
    browser.switch_to(&first).await;
    assert!(
        browser
            .approve(&proposal)
            .await
            .contains("Approved and ran")
    );

    browser.switch_to(&second).await;
    let refused = browser.approve(&proposal).await;
    assert!(
        refused.starts_with("Refused:") && refused.contains("already approved"),
        "{refused}"
    );
    assert_eq!(outbox.lock().await.sent.len(), 1, "never twice");

    // A third tab, live: a proposal declined elsewhere (here, the host's own CLI path)
    // disappears without a reload.
    let other = fixture::propose_one(&driver, "bo@example.com", "the minutes").await;
    browser.new_tab().await;
    browser.open_console(address, &token, 1).await;
    driver
        .decline(&other.reviewed(), "not today")
        .expect("declined");
    browser
        .drops("the declined proposal gone", &card(&other))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_altered_in_the_store_after_the_page_loaded_is_refused() {
    let Some(browser) = Browser::launch("altered").await else {
        return;
    };
    let dir = tempdir("altered");
    let path = dir.join("console.db");
    let (driver, outbox, address, token) = console(SqliteStore::open(&path).expect("opens")).await;
    let proposal = fixture::propose_one(&driver, "ana@example.com", "the report").await;
    browser.open_console(address, &token, 1).await;
    // Someone with write access to the database redirects the message.
    let changed = rusqlite::Connection::open(&path)
        .expect("the file opens")
        .execute(
            "UPDATE toolset_proposals SET proposal = replace(proposal, 'ana@example.com', 'eve@evil.example') WHERE id = ?1",
            [proposal.id().as_str()],
        )
        .expect("valid SQL");
    assert_eq!(changed, 1);
    browser
        .until(
            "the change noticed",
            &format!(
                "return !document.querySelector(\"{} .changed\").hidden;",
                card(&proposal)
            ),
        )
        .await;
    // What the card shows is still what was reviewed; approving it signs that.
    let shown = browser
        .run(&format!(
            "return document.querySelector(\"{} .arguments\").textContent;",
            card(&proposal)
        ))
        .await;
    assert_eq!(shown, r#"{"to":"ana@example.com","body":"the report"}"#);
    let refused = browser.approve(&proposal).await;
    assert!(
        refused.starts_with("Refused:") && refused.contains("not what was reviewed"),
        "{refused}"
    );
    assert!(
        outbox.lock().await.sent.is_empty(),
        "nothing ran, for ana or eve"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_argument_renders_as_text_and_runs_no_script() {
    let Some(browser) = Browser::launch("hostile").await else {
        return;
    };
    let (driver, outbox, address, token) = console(MemoryStore::new()).await;
    let to = r#"<img src=x onerror="window.__pwned='img'">"#;
    let body = r#"</pre><script>window.__pwned='script'</script>"#;
    let proposal = fixture::propose_one(&driver, to, body).await;
    browser.open_console(address, &token, 1).await;
    // Long enough for an image's error to fire, were there one.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        browser.run("return typeof window.__pwned;").await,
        "undefined"
    );
    assert_eq!(
        browser.run("return document.querySelectorAll('main img, main script, #proposals pre *').length;").await,
        0,
        "no element was made from the arguments"
    );
    let shown = browser
        .run(&format!(
            "return document.querySelector(\"{} .arguments\").textContent;",
            card(&proposal)
        ))
        .await;
    let shown = shown.as_str().expect("text");
    assert!(
        shown.contains(to.replace('"', "\\\"").as_str()) && shown.contains("<script>"),
        "{shown}"
    );
    assert!(outbox.lock().await.sent.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_doubt_call_resolved_by_a_click_ends_once_and_shows_what_the_model_is_told() {
    let Some(browser) = Browser::launch("in-doubt").await else {
        return;
    };
    let (driver, outbox, address, token) = console(MemoryStore::new()).await;
    fixture::in_doubt(&driver, "send-cut-off", "ana@example.com");
    browser.open_console(address, &token, 0).await;
    let entry = "#in-doubt .card[data-key='send-cut-off']";
    browser.shows("the call in doubt", entry).await;
    let second = browser.tab().await;
    let first = browser.new_tab().await;
    browser.open_console(address, &token, 0).await;
    browser.shows("the call in doubt", entry).await;
    browser.switch_to(&second).await;
    browser.click("#live").await;
    browser.switch_to(&first).await;

    browser.click(&format!("{entry} .done")).await;
    let told = result_of(&browser, entry).await;
    assert!(
        told.contains("The model will be told: The call ran, but its result was lost"),
        "{told}"
    );
    let ended = driver
        .store()
        .entry("send-cut-off")
        .expect("readable")
        .expect("kept");
    assert_eq!(ended.end.as_ref().map(|end| end.ending), Some(Ending::Done));
    assert_eq!(ended.delivered_at_ms, None, "the run delivers it, once");

    // The other tab, held still, decides the opposite: refused, the first end stands.
    browser.switch_to(&second).await;
    browser.click(&format!("{entry} .failed")).await;
    let refused = result_of(&browser, entry).await;
    assert!(
        refused.starts_with("Refused:") && refused.contains("in doubt"),
        "{refused}"
    );
    let still = driver
        .store()
        .entry("send-cut-off")
        .expect("readable")
        .expect("kept");
    assert_eq!(still.end.map(|end| end.ending), Some(Ending::Done));
    assert!(outbox.lock().await.sent.is_empty(), "marking runs nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_as_the_readme_shows_it() {
    let Some(browser) = Browser::launch("screenshot").await else {
        return;
    };
    let (driver, _outbox, address, token) = console(MemoryStore::new()).await;
    fixture::propose(
        &driver,
        &[
            ("ana@cy-partners.example", "Here is the signed contract."),
            ("finance@example.com", "Pay invoice 2231 today."),
        ],
    )
    .await;
    fixture::in_doubt(&driver, "send-7f3a", "bo@example.com");
    browser.open_console(address, &token, 2).await;
    browser
        .until(
            "the call in doubt",
            "return document.querySelectorAll('#in-doubt .card').length === 1;",
        )
        .await;
    browser
        .type_into(
            "#proposals .card:nth-child(2) .reason",
            "not before the audit",
        )
        .await;
    let png = browser.screenshot().await;
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "a real screenshot"
    );
    if std::env::var("TOOLSET_SCREENSHOT").as_deref() == Ok("overwrite") {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/console.png");
        std::fs::write(&path, png).expect("docs/console.png is written");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_consoles_on_one_postgresql_database_agree() {
    let Some(url) = postgres::url("two_consoles_on_one_postgresql_database_agree") else {
        return;
    };
    let Some(browser) = Browser::launch("replicas").await else {
        return;
    };
    let database = postgres::fresh_database(&url, "console_replicas");
    let (driver_a, outbox_a, address_a, token_a) =
        console(PostgresStore::connect(&database).expect("connects")).await;
    let (_driver_b, outbox_b, address_b, token_b) =
        console(PostgresStore::connect(&database).expect("connects")).await;
    let proposal = fixture::propose_one(&driver_a, "ana@example.com", "the report").await;
    let on_a = browser.tab().await;
    browser.open_console(address_a, &token_a, 1).await;
    browser.new_tab().await;
    // Made by replica A, shown and approved by replica B.
    browser.open_console(address_b, &token_b, 1).await;
    assert!(
        browser
            .approve(&proposal)
            .await
            .contains("Approved and ran")
    );
    assert_eq!(outbox_b.lock().await.sent.len(), 1);
    // Replica A's page drops it on its own, and A's API refuses it.
    browser.switch_to(&on_a).await;
    browser
        .drops("the proposal gone from replica A", &card(&proposal))
        .await;
    let refused = driver_a
        .approve(
            &proposal.reviewed(),
            &mut *outbox_a.lock().await,
            &toolset::ToolContext::default(),
        )
        .await
        .expect_err("resolved on B");
    assert!(
        refused.to_string().contains("already approved"),
        "{refused}"
    );
    assert!(
        outbox_a.lock().await.sent.is_empty(),
        "run once, across replicas"
    );
    // Replica A's journal shows the end B wrote.
    let end = driver_a
        .store()
        .entry(proposal.id().as_str())
        .expect("readable")
        .expect("kept");
    assert_eq!(end.end.map(|end| end.ending), Some(Ending::Done));
}

/// A fresh temp dir for `test`.
fn tempdir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolset-console-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}
