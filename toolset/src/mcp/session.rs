//! What one MCP session is offered: the [`Request`] its `tools/list` and `tools/call`
//! share (the server's policy, its toolbox's runtime tools as they are now, and the
//! deferred tools this session activated), and the tool list that request composes, kept
//! until an activation or a refresh of the toolbox's namespaces changes it.
//!
//! This is the server's one seam onto the set: listing, gating and activating go through
//! here, so what the client is listed and what the gate lets through cannot drift apart
//! (DESIGN.md, "One invariant above all").

use crate::approval::ApprovalError;
use crate::approval::Approved;
use crate::call::ToolCall;
use crate::consumer::Format;
use crate::context::LogLevel;
use crate::exposure::Exposure;
use crate::gate::Rejected;
use crate::plan::Plan;
use crate::policy::Policy;
use crate::policy::PolicyNameError;
use crate::proposal::Proposal;
use crate::report::Report;
use crate::request::Activations;
use crate::request::Request;
use crate::run::Run;
use crate::search::SEARCH_TOOL_NAME;
use crate::set::ToolName;
use crate::set::ToolSet;
use crate::spec::Labels;
use crate::toolbox::Toolbox;
use rmcp::model::Tool;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use tokio_util::sync::CancellationToken;

/// A composed `tools/list`, shared: every `tools/list` of a session hands out this one
/// rendering; an `Err` only if the MCP rendering does not parse as MCP tools, which would
/// be a bug of the renderer.
pub(super) type Listed = Result<Arc<[Tool]>, Arc<str>>;

/// What every session of a server starts from: the policy, the toolbox (the compiled set
/// and the runtime tools), and the list of a session that activated nothing, composed once
/// and again only when one of the toolbox's namespaces refreshed.
pub(super) struct Base<T: ToolSet> {
    pub(super) policy: Arc<Policy<T>>,
    pub(super) toolbox: Toolbox<T>,
    /// The base list and the toolbox generation it was composed at.
    listed: RwLock<(u64, Listed)>,
}

impl<T: ToolSet> Base<T> {
    pub(super) fn new(policy: Arc<Policy<T>>, toolbox: Toolbox<T>) -> Self {
        let generation = toolbox.generation();
        let listed = base_listed(&toolbox, &policy);
        Base {
            policy,
            toolbox,
            listed: RwLock::new((generation, listed)),
        }
    }

    /// The list of a session with nothing activated, as the toolbox is now.
    pub(super) fn listed(&self) -> Listed {
        let generation = self.toolbox.generation();
        {
            let held = self.listed.read().unwrap_or_else(PoisonError::into_inner);
            if held.0 == generation {
                return held.1.clone();
            }
        }
        // Read before composing: a refresh meanwhile leaves this one stale, recomposed next time.
        let now = base_listed(&self.toolbox, &self.policy);
        *self.listed.write().unwrap_or_else(PoisonError::into_inner) = (generation, now.clone());
        now
    }

    /// The MCP `Tool` a session could be listed by `name`, once activated if it is
    /// deferred: what a `tools/call`'s `Mcp-Param-*` headers are checked against (rmcp
    /// asks a fresh handler, which knows no session's activations, so a deferred tool is
    /// looked up as if activated: a call the gate may let through is never left
    /// unchecked). `None` for a tool the policy does not offer at all, whose call the gate
    /// refuses.
    pub(super) fn tool(&self, name: &str) -> Option<Tool> {
        let mut activated = Activations::new();
        activated.activate(name);
        let listed = listed_or_error(self.request(&activated)).ok()?;
        listed.iter().find(|tool| tool.name == name).cloned()
    }

    /// The request of a session that activated `activations`, with the policy's runtime
    /// names checked against the toolbox's tools as they are now: a name it lacks (a
    /// misspelled one, or a tool a namespace dropped) is a [`PolicyNameError`] on every
    /// path, so the list, the gate and an approval fail closed alike.
    ///
    /// Built in place, not by the by-value builder: a `Request` is large, and this runs
    /// for every call (callgrind: each by-value step copied it).
    fn request<'a>(&'a self, activations: &Activations) -> Result<Request<'a, T>, PolicyNameError> {
        let mut request = Request::new(&self.policy);
        request.set_toolbox(&self.toolbox)?;
        request.set_format(Format::Mcp);
        request.set_activated(activations);
        Ok(request)
    }

    /// [`request`](Self::request), judging calls under the session's `exposure` too.
    fn gating<'a>(
        &'a self,
        activations: &Activations,
        exposure: &'a Exposure,
    ) -> Result<Request<'a, T>, PolicyNameError> {
        let mut request = self.request(activations)?;
        request.set_exposure(exposure);
        Ok(request)
    }
}

/// The list of a session with nothing activated; the policy naming runtime tools the
/// toolbox lacks (a [`PolicyNameError`]) fails it, with the error.
fn base_listed<T: ToolSet>(toolbox: &Toolbox<T>, policy: &Policy<T>) -> Listed {
    match toolbox.request(policy) {
        Ok(request) => listed(&request.format(Format::Mcp)),
        Err(error) => Err(Arc::from(error.to_string())),
    }
}

/// [`listed`] of a request, or the policy's naming error as the list's error.
fn listed_or_error<T: ToolSet>(request: Result<Request<'_, T>, PolicyNameError>) -> Listed {
    match request {
        Ok(request) => listed(&request),
        Err(error) => Err(Arc::from(error.to_string())),
    }
}

/// One session's activations and the list they give, and what its calls have read.
///
/// Shared by the clones of one session's handler; a new connection or HTTP session gets
/// a fresh one ([`Session::default`]).
pub(super) struct Session {
    inner: Mutex<Activated>,
    /// Cancelled when the session ends (its handler's last clone is dropped), which stops
    /// its forwarding of the toolbox's refreshes.
    ended: CancellationToken,
    /// This session's random name: its share of the proposal store's limits, and the scope
    /// of its calls' journal keys (a JSON-RPC id is unique only within its session).
    id: String,
    /// The least severe level of the log messages its client wants: what it set by
    /// `logging/setLevel`, or until then every level (the MCP specification sets no
    /// default; its SDKs send every message until the client sets a level).
    log_level: Mutex<LogLevel>,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            inner: Mutex::default(),
            ended: CancellationToken::new(),
            log_level: Mutex::new(LogLevel::Debug),
            id: format!("mcp-session-{}", crate::proposal::ProposalId::random()),
        }
    }
}

#[derive(Default)]
struct Activated {
    /// The session's conversation state, the conversation driver's own type, kept in
    /// memory for the session's life: its activations, what its calls that ran have read
    /// (the gate's trifecta rule), and its tools' retries.
    run: Run,
    /// The list for `activations` and the toolbox generation it was composed at, once
    /// something is activated; `None`: the server's base list.
    listed: Option<(u64, Listed)>,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.ended.cancel();
    }
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, Activated> {
        // Nothing panics while holding it; a poisoned lock still holds whole names.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whose share of the proposal store's limits a proposal of `context`'s request takes:
    /// this session's, or for a request without a session (2026-07-28 over HTTP, each with a
    /// session of its own), the one share of every such request, so that a flood of them
    /// cannot take the share of a client that keeps a session.
    pub(super) fn owner(&self, context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> &str {
        let over_http = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some();
        if over_http && super::trace::session_id(context).is_none() {
            "mcp-without-session"
        } else {
            &self.id
        }
    }

    /// The scope of this session's journal keys ([`Plan::in_run`]): its own random name, so
    /// that two sessions (each numbering its requests from 1) never share a key. A request
    /// without a session has a session of its own.
    pub(super) fn scope(&self) -> &str {
        &self.id
    }

    /// Records the least severe level of the log messages the session's client wants
    /// (`logging/setLevel`).
    pub(super) fn set_log_level(&self, level: LogLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = level;
    }

    /// The least severe level of the log messages the session's client wants.
    pub(super) fn log_level(&self) -> LogLevel {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Completes when the session has ended.
    pub(super) fn ended(&self) -> CancellationToken {
        self.ended.clone()
    }

    /// The session's current tool list: `base`'s (the list of a session with nothing
    /// activated) until something is activated; recomposed once the toolbox refreshed.
    pub(super) fn listed<T: ToolSet>(&self, base: &Base<T>) -> Listed {
        let mut inner = self.lock();
        match &inner.listed {
            None => base.listed(),
            Some((generation, listed)) if *generation == base.toolbox.generation() => {
                listed.clone()
            }
            Some(_) => {
                let generation = base.toolbox.generation();
                let now = listed_or_error(base.request(inner.run.activations()));
                inner.listed = Some((generation, now.clone()));
                now
            }
        }
    }

    /// Gates one call against the session's request, with the toolbox's tools as they are
    /// now: a tool a namespace dropped is unknown from its refresh on.
    /// `Err` when the policy names a runtime tool the toolbox lacks: nothing is gated.
    pub(super) fn gate<T: ToolSet>(
        &self,
        base: &Base<T>,
        call: ToolCall,
    ) -> Result<Result<Plan<T>, Rejected>, PolicyNameError> {
        // A call to a tool the request plainly permits takes no snapshot of the toolbox.
        self.gating(base, |request| request.gate([call]))
    }

    /// `judge` under the session's request as it is now. The request copies the names and
    /// the exposure it needs, so the lock is released before `judge` runs.
    fn gating<T: ToolSet, R>(
        &self,
        base: &Base<T>,
        judge: impl FnOnce(&Request<'_, T>) -> R,
    ) -> Result<R, PolicyNameError> {
        let exposure;
        let request = {
            let session = self.lock();
            exposure = session.run.exposure().clone();
            base.gating(session.run.activations(), &exposure)?
        };
        Ok(judge(&request))
    }

    /// Approves `proposal`, which the human approved where it was shown to them (by
    /// elicitation, on this session's connection), under the session's request as it is
    /// now: its policy, and the toolbox's tools as they are now (a runtime tool a namespace
    /// dropped meanwhile is unknown). See `approval::approve_in_flight`.
    pub(super) fn approve_in_flight<T: ToolSet>(
        &self,
        base: &Base<T>,
        proposal: &Proposal,
    ) -> Option<Result<Approved<'static, T>, ApprovalError>> {
        self.gating(base, |request| {
            crate::approval::approve_in_flight(proposal, request)
        })
        .ok()
    }

    /// Approves a proposal the human approved by `input_required` (MCP 2026-07-28), which
    /// waited in the server's store: `approve` ([`Approvals::approve`](crate::Approvals::approve))
    /// under the session's request as it is now, as for
    /// [`approve_in_flight`](Self::approve_in_flight). `None` when the policy names a
    /// runtime tool the toolbox lacks: nothing is approved.
    pub(super) fn approve_submitted<T: ToolSet, R>(
        &self,
        base: &Base<T>,
        approve: impl FnOnce(&Request<'_, T>) -> R,
    ) -> Option<R> {
        self.gating(base, approve).ok()
    }

    /// Presumes the session's conversation has read private data and untrusted content,
    /// for a request that stands alone (a 2026-07-28 request over HTTP, without a
    /// session): what the conversation's earlier requests read is unknown here, so the
    /// trifecta rule judges it exposed (fail closed). A call that sends outside is then
    /// held for the human (or denied, under `Trifecta::Deny`), whatever was read before.
    pub(super) fn presume_exposed(&self) {
        self.lock().run.exposure_mut().read(
            crate::messages::UNSEEN_REQUESTS,
            Labels::NONE.reading_private().reading_untrusted(),
        );
    }

    /// What a session does with the report of a call that ran before its answer is
    /// written, as the driver does with a turn's: fails a retry past `retries` for its
    /// tool within the session ([`Run::cap_retries`]), then records what the calls that
    /// ran have read into the session's exposure. (What the output activates is
    /// activated from the answer, by [`activate`](Self::activate).)
    pub(super) fn record(&self, report: &mut Report, retries: u32) {
        let mut inner = self.lock();
        inner.run.cap_retries(report, retries);
        inner.run.exposure_mut().record(report);
    }

    /// Activates `names` (a search's finds, or what any tool's output activates) and
    /// re-composes the list when one is new. Returns whether the list changed, i.e.
    /// whether the client must be sent `notifications/tools/list_changed`.
    pub(super) fn activate<T: ToolSet>(&self, base: &Base<T>, names: &[String]) -> bool {
        if names.is_empty() {
            return false;
        }
        let mut inner = self.lock();
        let mut added = false;
        for name in names {
            added |= inner.run.activations_mut().activate(name.clone());
        }
        if !added {
            return false;
        }
        let generation = base.toolbox.generation();
        let listed = listed_or_error(base.request(inner.run.activations()));
        // Activating only appends, so a list of the same length is the same list: the
        // names activated were offered already, or are not the policy's to offer.
        let changed = match (&inner.listed, &listed) {
            (Some((_, Ok(before))), Ok(now)) => before.len() != now.len(),
            (None, Ok(now)) => base
                .listed()
                .map_or(true, |before| before.len() != now.len()),
            _ => true,
        };
        inner.listed = Some((generation, listed));
        changed
    }
}

/// The `tools/list` tools of `request`: its composed MCP list, parsed once.
///
/// Names, and descriptions equal to the spec's, borrow the spec's `'static` text, so that
/// handing the list out (rmcp wants a `Vec<Tool>` per `tools/list`) copies no string
/// but the few titles; schemas are behind `Arc`s.
pub(super) fn listed<T: ToolSet>(request: &Request<'_, T>) -> Listed {
    let rendered = request.tool_list();
    let mut tools: Vec<Tool> = serde_json::from_str(&rendered).map_err(|error| {
        Arc::<str>::from(crate::mcp::messages::unlisted_tools(
            T::NAME,
            &error.to_string(),
        ))
    })?;
    for tool in &mut tools {
        if let Some(name) = T::Name::from_name(&tool.name) {
            let spec = T::spec_of(name);
            tool.name = Cow::Borrowed(spec.name());
            if tool.description.as_deref() == Some(spec.description()) {
                tool.description = Some(Cow::Borrowed(spec.description()));
            }
        } else if tool.name == SEARCH_TOOL_NAME {
            tool.name = Cow::Borrowed(SEARCH_TOOL_NAME);
        }
    }
    Ok(Arc::from(tools))
}
