//! What one MCP session is offered: the [`Request`] its `tools/list` and `tools/call`
//! share (the server's policy and the deferred tools this session activated), and the
//! tool list that request composes, kept until an activation changes it.
//!
//! This is the server's one seam onto the set: listing, gating and activating go through
//! here, so what the client is listed and what the gate lets through cannot drift apart
//! (DESIGN.md, "One invariant above all").

use crate::consumer::Format;
use crate::search::SEARCH_TOOL_NAME;
use crate::{Activations, Plan, Policy, Rejected, Request, ToolCall, ToolName, ToolSet};
use rmcp::model::Tool;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A composed `tools/list`, shared: every `tools/list` of a session hands out this one
/// rendering; an `Err` only if the MCP rendering does not parse as MCP tools, which would
/// be a bug of the renderer.
pub(super) type Listed = Result<Arc<[Tool]>, Arc<str>>;

/// One session's activations and the list they give.
///
/// Shared by the clones of one session's handler; a new connection or HTTP session gets
/// a fresh one ([`Session::default`]).
#[derive(Default)]
pub(super) struct Session {
    inner: Mutex<Activated>,
}

#[derive(Default)]
struct Activated {
    activations: Activations,
    /// The list for `activations`, once there are any; `None`: the server's base list.
    listed: Option<Listed>,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, Activated> {
        // Nothing panics while holding it; a poisoned lock still holds whole names.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The request of this session under `policy`: what it lists and what its gate
    /// permits.
    pub(super) fn request<'p, T: ToolSet>(&self, policy: &'p Policy<T>) -> Request<'p, T> {
        Request::new(policy, Format::Mcp).activated(&self.lock().activations)
    }

    /// The session's current tool list: `base` (the list of a session with nothing
    /// activated) until something is activated.
    pub(super) fn listed(&self, base: &Listed) -> Listed {
        self.lock().listed.clone().unwrap_or_else(|| base.clone())
    }

    /// Gates one call against the session's request.
    pub(super) fn gate<T: ToolSet>(
        &self,
        policy: &Policy<T>,
        call: ToolCall,
    ) -> Result<Plan<T>, Rejected> {
        self.request(policy).gate([call])
    }

    /// Activates `names` (a search's finds, or what any tool's output activates) and
    /// re-composes the list when one is new; `base` is the list before any activation. Returns whether the list changed, i.e.
    /// whether the client must be sent `notifications/tools/list_changed`.
    pub(super) fn activate<T: ToolSet>(
        &self,
        policy: &Policy<T>,
        base: &Listed,
        names: &[String],
    ) -> bool {
        if names.is_empty() {
            return false;
        }
        let mut inner = self.lock();
        let mut added = false;
        for name in names {
            added |= inner.activations.activate(name.clone());
        }
        if !added {
            return false;
        }
        let request = Request::new(policy, Format::Mcp).activated(&inner.activations);
        let listed = listed(&request);
        // Activating only appends, so a list of the same length is the same list: the
        // names activated were offered already, or are not the policy's to offer.
        let changed = match (inner.listed.as_ref().unwrap_or(base), &listed) {
            (Ok(before), Ok(now)) => before.len() != now.len(),
            _ => true,
        };
        inner.listed = Some(listed);
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
