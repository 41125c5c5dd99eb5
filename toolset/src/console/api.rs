//! The console's routes: the page's three files, and its JSON API. Reads list what waits
//! (`/api/state`, filtered by run and tool) and one conversation (`/api/runs/{id}`); every
//! change goes through the host's [`Driver`] with what the page showed: an approval with
//! the digest it displayed, an in-doubt call's verdict with the attempt it listed.

use super::access::{self, Access, SessionCsrf};
use super::state::ConsoleState;
use crate::approval::{ProposalId, Reviewed};
use crate::driver::{Driver, DriverError, Resolved, Verdict};
use crate::outcome::Outcome;
use crate::proposal::{Proposal, now_ms};
use crate::set::ToolSet;
use crate::store::{JournalEntry, RunId, Store};
use crate::tier::Autonomy;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// The page: markup, style and script, embedded; no build step, nothing from elsewhere.
const PAGE: &str = include_str!("page/index.html");
const STYLE: &str = include_str!("page/console.css");
const SCRIPT: &str = include_str!("page/console.js");

/// What the handlers share.
struct App<T: ToolSet, S, C> {
    driver: Arc<Driver<T, S>>,
    state: Arc<C>,
}

/// The console's router, every route behind [`access::check`].
pub(super) fn routes<T, S, C>(
    driver: Arc<Driver<T, S>>,
    state: Arc<C>,
    access: Arc<Access>,
) -> Router
where
    T: ToolSet + 'static,
    T::State: Send,
    S: Store + Send + Sync + 'static,
    C: ConsoleState<T>,
{
    let app = Arc::new(App { driver, state });
    Router::new()
        .route(
            "/",
            get(|| async { file("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/console.css",
            get(|| async { file("text/css; charset=utf-8", STYLE) }),
        )
        .route(
            "/console.js",
            get(|| async { file("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route("/api/session", get(session))
        .route("/api/state", get(App::<T, S, C>::overview))
        .route("/api/runs/{id}", get(App::<T, S, C>::run))
        .route("/api/proposals/{id}/approve", post(App::<T, S, C>::approve))
        .route("/api/proposals/{id}/decline", post(App::<T, S, C>::decline))
        .route("/api/in-doubt/{key}/resolve", post(App::<T, S, C>::resolve))
        .fallback(|| async { refusal(StatusCode::NOT_FOUND, "no such page in the console") })
        .with_state(app)
        .layer(axum::middleware::from_fn_with_state(access, access::check))
}

fn file(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn reply(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// A refusal the page shows as it is: `{"error": "…"}`.
fn refusal(status: StatusCode, message: &str) -> Response {
    reply(status, &json!({ "error": message }))
}

/// The session's CSRF token, for the page to send with every change.
async fn session(csrf: Option<Extension<SessionCsrf>>) -> Response {
    match csrf {
        Some(Extension(SessionCsrf(csrf))) => reply(StatusCode::OK, &json!({ "csrf": csrf })),
        None => refusal(
            StatusCode::UNAUTHORIZED,
            "no console session: open the console page",
        ),
    }
}

/// `run=<id>&tool=<name>` of the query string (exact values; anything else ignored).
fn filters(query: Option<&str>) -> (Option<String>, Option<String>) {
    let (mut run, mut tool) = (None, None);
    for pair in query.unwrap_or_default().split('&') {
        match pair.split_once('=') {
            Some(("run", value)) if !value.is_empty() => run = Some(value.to_owned()),
            Some(("tool", value)) if !value.is_empty() => tool = Some(value.to_owned()),
            _ => {}
        }
    }
    (run, tool)
}

/// A proposal as the human reviews it; `digest` is what approving it signs.
fn proposal_view<T: ToolSet, S: Store>(driver: &Driver<T, S>, proposal: &Proposal) -> Value {
    let call = proposal.call();
    let autonomy = driver.policy().autonomy();
    let mut reasons = Vec::new();
    if proposal.is_propose_only() {
        reasons.push(json!({
            "kind": "propose_only",
            "text": "the tool only proposes: once approved, the host carries the call out",
        }));
    } else if !autonomy.allows(proposal.tier()) {
        reasons.push(json!({
            "kind": "tier",
            "text": format!(
                "its tier, `{}`, is above what the agent may do alone (autonomy: {})",
                proposal.tier(),
                autonomy_name(autonomy)
            ),
        }));
    }
    if let Some(raised) = proposal.raised_because() {
        reasons.push(json!({ "kind": "escalation", "text": raised }));
    }
    if let Some(held) = proposal.held_by_trifecta() {
        reasons.push(json!({ "kind": "trifecta", "text": held }));
    }
    json!({
        "id": proposal.id().as_str(),
        "run": proposal.owner(),
        "tool": call.name,
        "call_id": call.id,
        "tier": proposal.tier().as_str(),
        "arguments": call.arguments.text(),
        "preview": driver.preview(proposal),
        "reasons": reasons,
        "propose_only": proposal.is_propose_only(),
        "expires_at_ms": proposal.expires_at_ms(),
        "digest": proposal.digest(),
    })
}

/// The autonomy level as the page names it.
fn autonomy_name(autonomy: Autonomy) -> &'static str {
    match autonomy {
        Autonomy::Off => "off",
        Autonomy::ReadOnly => "read-only calls",
        Autonomy::Reversible => "reversible calls",
        Autonomy::ExternalReversible => "all but irreversible calls",
    }
}

/// A call in doubt as the human deciding sees it; `attempts` is what deciding names.
fn entry_view(entry: &JournalEntry) -> Value {
    json!({
        "key": entry.key,
        "tool": entry.call.name,
        "call_id": entry.call.id,
        "arguments": entry.call.arguments.text(),
        "tier": entry.tier.as_str(),
        "started_at_ms": entry.started_at_ms,
        "attempts": entry.attempts,
    })
}

/// An approval as the page sends it: the digest it displayed.
#[derive(Deserialize)]
struct Approval {
    digest: String,
}

/// A decline: the digest displayed and the reason the model is told.
#[derive(Deserialize)]
struct Decline {
    digest: String,
    #[serde(default)]
    reason: String,
}

/// A verdict on a call in doubt, and the attempt the page listed.
#[derive(Deserialize)]
struct Resolution {
    verdict: String,
    attempts: u32,
}

/// The body as `B`, or the `400` saying what is wrong with it.
fn body<B: for<'de> Deserialize<'de>>(bytes: &Bytes) -> Result<B, BadRequest> {
    serde_json::from_slice(bytes).map_err(|error| {
        BadRequest(format!(
            "the request body is not what the console sends: {error}"
        ))
    })
}

fn proposal_id(id: &str) -> Result<ProposalId, BadRequest> {
    ProposalId::parse(id).ok_or_else(|| BadRequest("that is not a proposal id".to_owned()))
}

/// A request the page never sends: answered `400` with what is wrong.
struct BadRequest(String);

impl IntoResponse for BadRequest {
    fn into_response(self) -> Response {
        refusal(StatusCode::BAD_REQUEST, &self.0)
    }
}

/// A refused decision: 409, with the driver's words (what was refused, and what to do).
fn refused(error: &DriverError) -> Response {
    refusal(StatusCode::CONFLICT, &error.to_string())
}

/// What an outcome says, as the page shows it.
fn outcome_text(outcome: &Outcome) -> String {
    outcome.to_tool_output().text_content()
}

/// The handlers that reach the driver and the host's state, under the bounds the router
/// needs once.
impl<T, S, C> App<T, S, C>
where
    T: ToolSet,
    T::State: Send,
    S: Store,
    C: ConsoleState<T>,
{
    /// Everything that waits: proposals (filtered by run and tool), calls in doubt, and the
    /// runs the proposals belong to.
    async fn overview(State(app): State<Arc<Self>>, RawQuery(query): RawQuery) -> Response {
        let (run, tool) = filters(query.as_deref());
        let driver = &app.driver;
        let waiting = match driver.approvals().waiting() {
            Ok(waiting) => waiting,
            Err(error) => return refusal(StatusCode::SERVICE_UNAVAILABLE, &error.to_string()),
        };
        let mut runs: Vec<&str> = waiting
            .iter()
            .map(Proposal::owner)
            .filter(|owner| !owner.is_empty())
            .collect();
        runs.sort_unstable();
        runs.dedup();
        let proposals: Vec<Value> = waiting
            .iter()
            .filter(|proposal| run.as_deref().is_none_or(|run| proposal.owner() == run))
            .filter(|proposal| {
                tool.as_deref()
                    .is_none_or(|tool| proposal.call().name == tool)
            })
            .map(|proposal| proposal_view(driver, proposal))
            .collect();
        let in_doubt = match driver.store().in_doubt() {
            Ok(entries) => entries,
            Err(error) => return refusal(StatusCode::SERVICE_UNAVAILABLE, &error.to_string()),
        };
        let in_doubt: Vec<Value> = in_doubt
            .iter()
            .filter(|entry| tool.as_deref().is_none_or(|tool| entry.call.name == tool))
            .map(entry_view)
            .collect();
        reply(
            StatusCode::OK,
            &json!({ "now": now_ms(), "proposals": proposals, "in_doubt": in_doubt, "runs": runs }),
        )
    }

    /// One conversation, read only: its pending calls, late results and exposure.
    async fn run(State(app): State<Arc<Self>>, Path(id): Path<String>) -> Response {
        let Some(id) = RunId::parse(&id) else {
            return refusal(
                StatusCode::BAD_REQUEST,
                "that is not a run id: copy it as the host printed it",
            );
        };
        let run = match app.driver.run(&id) {
            Ok(run) => run,
            Err(error) => return refusal(StatusCode::NOT_FOUND, &error.to_string()),
        };
        let pending: Vec<Value> = run
        .pending()
        .iter()
        .map(|pending| json!({ "proposal": pending.proposal.as_str(), "call_id": pending.call_id, "tool": pending.tool }))
        .collect();
        let late: Vec<Value> = run
        .late()
        .iter()
        .map(|late| json!({ "call_id": late.reply.call_id, "tool": late.reply.name, "text": late.reply.output.text_content() }))
        .collect();
        let exposure = run.exposure();
        reply(
            StatusCode::OK,
            &json!({
                "id": id.as_str(),
                "generation": run.generation(),
                "pending": pending,
                "late": late,
                "exposure": { "private_from": exposure.private_from(), "untrusted_from": exposure.untrusted_from() },
            }),
        )
    }

    /// Approves the proposal as the page showed it, through the driver: run once against the
    /// host's state, or handed to the host.
    async fn approve(
        State(app): State<Arc<Self>>,
        Path(id): Path<String>,
        bytes: Bytes,
    ) -> Response {
        let (proposal, Approval { digest }) = match (proposal_id(&id), body(&bytes)) {
            (Ok(id), Ok(approval)) => (id, approval),
            (Err(answer), _) | (_, Err(answer)) => return answer.into_response(),
        };
        let reviewed = Reviewed { proposal, digest };
        let ctx = app.state.context();
        let mut state = app.state.lock().await;
        match app.driver.approve(&reviewed, &mut state, &ctx).await {
            Ok(Resolved::Ran(report)) => {
                let results: Vec<Value> = report
                .outcomes()
                .map(|(call, outcome)| {
                    json!({ "call_id": call.id, "tool": call.name, "kind": outcome.kind(), "text": outcome_text(outcome) })
                })
                .collect();
                reply(
                    StatusCode::OK,
                    &json!({ "approved": true, "ran": true, "results": results }),
                )
            }
            Ok(_) => reply(
                StatusCode::OK,
                &json!({ "approved": true, "ran": false, "results": [], "message": "approved: handed to the host to carry out" }),
            ),
            Err(error) => refused(&error),
        }
    }

    /// Declines the proposal as the page showed it, with the human's reason.
    async fn decline(
        State(app): State<Arc<Self>>,
        Path(id): Path<String>,
        bytes: Bytes,
    ) -> Response {
        let (proposal, Decline { digest, reason }) = match (proposal_id(&id), body(&bytes)) {
            (Ok(id), Ok(decline)) => (id, decline),
            (Err(answer), _) | (_, Err(answer)) => return answer.into_response(),
        };
        let reason = match reason.trim() {
            "" => "the user said no",
            reason => reason,
        };
        match app.driver.decline(&Reviewed { proposal, digest }, reason) {
            Ok(()) => reply(StatusCode::OK, &json!({ "declined": true })),
            Err(error) => refused(&error),
        }
    }

    /// Decides a call in doubt as the page listed it, through the driver.
    async fn resolve(
        State(app): State<Arc<Self>>,
        Path(key): Path<String>,
        bytes: Bytes,
    ) -> Response {
        let Resolution { verdict, attempts } = match body(&bytes) {
            Ok(resolution) => resolution,
            Err(answer) => return answer.into_response(),
        };
        let Some(verdict) = Verdict::parse(&verdict) else {
            return refusal(
                StatusCode::BAD_REQUEST,
                "the verdict is done, failed or rerun",
            );
        };
        let entry = match app.driver.store().entry(&key) {
            Ok(Some(entry)) if entry.attempts == attempts => entry,
            Ok(_) => {
                return refusal(
                    StatusCode::CONFLICT,
                    "the journal does not show this call in doubt as the page listed it (decided elsewhere, or re-run since): reload the list",
                );
            }
            Err(error) => return refusal(StatusCode::SERVICE_UNAVAILABLE, &error.to_string()),
        };
        let ctx = app.state.context();
        let mut state = app.state.lock().await;
        match app
            .driver
            .resolve_in_doubt(&entry, verdict, &mut state, &ctx)
            .await
        {
            Ok(settled) => reply(
                StatusCode::OK,
                &json!({ "resolved": true, "told": settled.told.output.text_content() }),
            ),
            Err(error) => refused(&error),
        }
    }
}
