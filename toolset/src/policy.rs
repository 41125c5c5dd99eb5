//! A per-request policy: it can only tighten what the set declares.

use crate::set::ToolName;
use crate::{Autonomy, ToolSet};
use std::fmt;
use std::marker::PhantomData;

/// Per-request restrictions on a set: lower autonomy, denied, hidden and deferred tools.
///
/// A fresh policy allocates nothing: the per-tool flags are only stored once a tool is
/// denied, hidden or deferred, so the plain `Set::gate` pays nothing per tool.
///
/// Tools are named through the set's generated name enum (`InboxToolsName::Search`), so a
/// policy naming a tool the set does not contain does not compile. A toolbox's runtime
/// tools are named by their names ([`deny_runtime`](Self::deny_runtime) and friends),
/// checked when the toolbox joins a request: a name no runtime tool has is an error there. Every method can only
/// restrict: there is no way to raise autonomy above the starting level, un-deny a tool,
/// or change a tool's declared tier.
pub struct Policy<T: ToolSet> {
    autonomy: Autonomy,
    /// Indexed by `ToolName::index`; empty until a tool is denied.
    denied: Vec<bool>,
    /// Likewise for hidden tools.
    hidden: Vec<bool>,
    /// Tools deferred by this policy, on top of those declared `deferred`.
    deferred: Vec<bool>,
    /// Runtime tools (a toolbox's) this policy names: checked against the toolbox when it
    /// joins a request ([`Request::toolbox`](crate::Request::toolbox)).
    runtime: RuntimeRules,
    set: PhantomData<fn() -> T>,
}

/// What a policy makes of runtime tools, by name: a toolbox's tools have no typed name,
/// so a name here is checked when the toolbox joins a request, not by the compiler.
#[derive(Debug, Clone, Default)]
struct RuntimeRules {
    denied: Vec<String>,
    hidden: Vec<String>,
    deferred: Vec<String>,
}

impl RuntimeRules {
    fn is_empty(&self) -> bool {
        self.denied.is_empty() && self.hidden.is_empty() && self.deferred.is_empty()
    }

    /// Every name, each once, in the order first named (hidden, denied, deferred).
    fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.hidden.iter().chain(&self.denied).chain(&self.deferred) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }
}

/// Adds `name` to `names` once.
fn name_once(names: &mut Vec<String>, name: String) {
    if !names.contains(&name) {
        names.push(name);
    }
}

/// Sets `flags[index]`, growing the (lazily allocated) flags to the set's size.
fn mark<T: ToolSet>(flags: &mut Vec<bool>, index: usize) {
    if flags.is_empty() {
        flags.resize(T::specs().len(), false);
    }
    flags[index] = true;
}

fn flag(flags: &[bool], index: usize) -> bool {
    flags.get(index).copied().unwrap_or(false)
}

impl<T: ToolSet> Policy<T> {
    /// A policy letting calls up to `autonomy` run unattended, with every tool available.
    pub fn new(autonomy: Autonomy) -> Self {
        Policy {
            autonomy,
            denied: Vec::new(),
            hidden: Vec::new(),
            deferred: Vec::new(),
            runtime: RuntimeRules::default(),
            set: PhantomData,
        }
    }

    /// Lowers autonomy to `level` if that is stricter; a higher level is ignored.
    pub fn limit_autonomy(mut self, level: Autonomy) -> Self {
        self.autonomy = self.autonomy.tightened_to(level);
        self
    }

    /// Denies `tool`: the gate rejects any call to it, with a message the model can read.
    pub fn deny(mut self, tool: T::Name) -> Self {
        mark::<T>(&mut self.denied, tool.index());
        self
    }

    /// Hides `tool`: to the model it does not exist. It is left out of every list (a
    /// history naming it gets the stand-in a name the set does not have gets), a call to
    /// it is answered as a call to an unknown name (even when it is also denied: hiding
    /// wins), no search finds it, no did-you-mean suggests it, and an output activating
    /// it fails as one activating an unknown name. Only [`Request::inject`](crate::Request::inject)
    /// brings it back, for that one request.
    pub fn hide(mut self, tool: T::Name) -> Self {
        mark::<T>(&mut self.hidden, tool.index());
        self
    }

    /// Defers `tool`: it is left out of the initial tool list, to be found by tool search.
    /// A [`Request`](crate::Request) offers it, and its gate lets calls to it through,
    /// once the conversation's [`Activations`](crate::Activations) hold it.
    pub fn defer(mut self, tool: T::Name) -> Self {
        mark::<T>(&mut self.deferred, tool.index());
        self
    }

    /// Denies the runtime tool `name` (a [`DynamicTool`](crate::DynamicTool)'s, or a
    /// namespace's `label_tool`): as [`deny`](Self::deny) for a tool of the set.
    ///
    /// A runtime tool has no typed name, so the compiler cannot check this one: it is
    /// checked when a toolbox joins a request ([`Request::toolbox`](crate::Request::toolbox),
    /// [`Toolbox::request`](crate::Toolbox::request)), where a name the toolbox's runtime
    /// tools do not have is an error ([`PolicyNameError`]). A request no toolbox joins
    /// (`Set::gate_with`, `Request::new` alone) has no runtime tools: there the names
    /// restrict nothing, and nothing of a toolbox can run.
    pub fn deny_runtime(mut self, name: impl Into<String>) -> Self {
        name_once(&mut self.runtime.denied, name.into());
        self
    }

    /// Hides the runtime tool `name`: as [`hide`](Self::hide) for a tool of the set, a
    /// name no tool has everywhere the model can see one (it is not injectable: injection
    /// takes the set's typed names). Checked as [`deny_runtime`](Self::deny_runtime)'s.
    pub fn hide_runtime(mut self, name: impl Into<String>) -> Self {
        name_once(&mut self.runtime.hidden, name.into());
        self
    }

    /// Defers the runtime tool `name`: as [`defer`](Self::defer) for a tool of the set, it
    /// is offered only once a tool search found it (the conversation's
    /// [`Activations`](crate::Activations) hold it). Checked as
    /// [`deny_runtime`](Self::deny_runtime)'s.
    pub fn defer_runtime(mut self, name: impl Into<String>) -> Self {
        name_once(&mut self.runtime.deferred, name.into());
        self
    }

    /// This policy, also denying, hiding and deferring every runtime tool `other` does: how
    /// the MCP server's builder merges the policies it is given, loosening nothing.
    #[cfg(feature = "mcp")]
    pub(crate) fn with_runtime_rules_of(mut self, other: &Policy<T>) -> Self {
        let rules = &other.runtime;
        for (mine, theirs) in [
            (&mut self.runtime.denied, &rules.denied),
            (&mut self.runtime.hidden, &rules.hidden),
            (&mut self.runtime.deferred, &rules.deferred),
        ] {
            for name in theirs {
                name_once(mine, name.clone());
            }
        }
        self
    }

    /// Whether the policy names any runtime tool.
    pub(crate) fn names_runtime_tools(&self) -> bool {
        !self.runtime.is_empty()
    }

    /// The runtime tools this policy names (denied, hidden or deferred), each once.
    pub fn runtime_names(&self) -> Vec<&str> {
        self.runtime.names()
    }

    /// What this policy makes of the runtime tool `name`, with the same precedence as
    /// for a tool of the set ([`availability`](Self::availability)): hiding wins over
    /// denying, denying over deferring. At [`Autonomy::Off`] a deferred runtime tool stays
    /// deferred: only an activation offers it.
    pub(crate) fn runtime_availability(&self, name: &str) -> Availability {
        let named = |names: &[String]| names.iter().any(|known| known == name);
        if named(&self.runtime.hidden) {
            Availability::Hidden
        } else if named(&self.runtime.denied) {
            Availability::Denied
        } else if named(&self.runtime.deferred) {
            Availability::Deferred
        } else {
            Availability::Offered
        }
    }

    /// Checks the runtime tools this policy names against `runtime`, the runtime tools of
    /// the toolbox joining a request: every name must be one of them. A name of the set's
    /// tools is refused too (name it through the typed [`deny`](Self::deny) and friends).
    pub(crate) fn check_runtime_names<'n>(
        &self,
        runtime: impl Iterator<Item = &'n str> + Clone,
    ) -> Result<(), PolicyNameError> {
        let mut unknown = Vec::new();
        for name in self.runtime.names() {
            if runtime.clone().any(|known| known == name) {
                continue;
            }
            let set_tool = T::Name::from_name(name).is_some();
            let suggestion = if set_tool {
                None
            } else {
                toolset_names::closest(name, runtime.clone()).map(str::to_owned)
            };
            unknown.push(UnknownName {
                name: name.to_owned(),
                set_tool,
                suggestion,
            });
        }
        if unknown.is_empty() {
            return Ok(());
        }
        Err(PolicyNameError {
            set: T::NAME,
            unknown,
            runtime: runtime.map(str::to_owned).collect(),
        })
    }

    /// The autonomy level in force.
    pub fn autonomy(&self) -> Autonomy {
        self.autonomy
    }

    /// Whether calls to `tool` are rejected.
    pub fn is_denied(&self, tool: T::Name) -> bool {
        flag(&self.denied, tool.index())
    }

    /// Whether `tool` is hidden from the model.
    pub fn is_hidden(&self, tool: T::Name) -> bool {
        flag(&self.hidden, tool.index())
    }

    /// Whether `tool` is left out of the initial list: declared `deferred`, or deferred
    /// by this policy.
    pub fn is_deferred(&self, tool: T::Name) -> bool {
        flag(&self.deferred, tool.index()) || T::spec_of(tool).is_deferred()
    }

    /// Whether `tool` is offered to the model up front: neither hidden, denied nor
    /// deferred. The one rule every tool list and the gate's unknown-tool answer start
    /// from; a [`Request`](crate::Request) adds what its conversation activated, injected
    /// and used.
    pub fn offers(&self, tool: T::Name) -> bool {
        self.availability(tool) == Availability::Offered
    }

    /// The tools to offer the model up front, in declared order: those [`offers`] is
    /// true of.
    ///
    /// [`offers`]: Policy::offers
    pub fn offered(&self) -> impl Iterator<Item = T::Name> + '_ {
        T::Name::ALL
            .iter()
            .copied()
            .filter(|&tool| self.offers(tool))
    }

    /// The one rule of what a hidden tool is: `tool` is hidden by this policy and not
    /// injected into the request at hand (`injected`; an injected tool is offered unless
    /// denied, and hiding wins over denying). Such a tool is *concealed*: in everything the
    /// model can see (the list and its history declarations, the gate's messages and
    /// did-you-mean, the search's results, what an output may activate) it is a name the
    /// set does not have. Every place that turns a name the model wrote into a tool asks
    /// this, through [`Concealed`] or `Request`'s lookup; none decides it on its own.
    pub(crate) fn conceals(&self, tool: T::Name, injected: &[T::Name]) -> bool {
        // Injection brings a hidden tool back, but never a denied one.
        let injected = injected.contains(&tool) && !self.is_denied(tool);
        self.is_hidden(tool) && !injected
    }

    /// The tools this policy conceals from a request injecting `injected` (see
    /// [`conceals`](Self::conceals)), for the stages after the gate.
    pub(crate) fn concealed(&self, injected: &[T::Name]) -> Concealed {
        if self.hidden.is_empty() {
            return Concealed::default();
        }
        Concealed {
            flags: T::Name::ALL
                .iter()
                .map(|&tool| self.conceals(tool, injected))
                .collect(),
        }
    }

    /// What this policy makes of `tool`. Hiding wins over denying (a hidden tool is
    /// unknown to the model, so it is never told the tool is denied), denying over
    /// deferring.
    pub(crate) fn availability(&self, tool: T::Name) -> Availability {
        if self.is_hidden(tool) {
            Availability::Hidden
        } else if self.is_denied(tool) {
            Availability::Denied
        } else if self.is_deferred(tool) {
            Availability::Deferred
        } else {
            Availability::Offered
        }
    }
}

/// The tools one request conceals ([`Policy::conceals`]), by index; carried by a
/// [`Plan`](crate::Plan) so that apply answers an output activating one of them exactly as
/// one activating a name the set does not have. Allocates nothing when nothing is hidden.
#[derive(Debug, Clone, Default)]
pub(crate) struct Concealed {
    flags: Vec<bool>,
}

impl Concealed {
    /// The set's tool `name` names, as the model may know it: `None` for a name the set
    /// does not have and for a concealed tool alike.
    pub(crate) fn resolve<T: ToolSet>(&self, name: &str) -> Option<T::Name> {
        T::Name::from_name(name).filter(|tool| !flag(&self.flags, tool.index()))
    }

    /// The names of the set's tools the model may know, in declared order.
    pub(crate) fn known<T: ToolSet>(&self) -> impl Iterator<Item = &'static str> + '_ {
        T::Name::ALL
            .iter()
            .filter(|tool| !flag(&self.flags, tool.index()))
            .map(|tool| tool.as_str())
    }
}

/// What a policy makes of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Availability {
    /// In the tool list; calls pass.
    Offered,
    /// Out of the initial list, to be found by tool search; calls pass.
    Deferred,
    /// Known to the model but refused, with a message saying so.
    Denied,
    /// Unknown to the model: calls are answered as for a tool that does not exist.
    Hidden,
}

/// A policy names runtime tools the toolbox joining a request does not have
/// ([`Policy::deny_runtime`], [`hide_runtime`](Policy::hide_runtime),
/// [`defer_runtime`](Policy::defer_runtime)): the request is not composed, since a
/// misspelled name would leave the tool it meant unrestricted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyNameError {
    set: &'static str,
    unknown: Vec<UnknownName>,
    runtime: Vec<String>,
}

/// One name a policy gives that no runtime tool of the toolbox has.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnknownName {
    name: String,
    /// It is a tool of the set, named as a runtime tool.
    set_tool: bool,
    /// The closest runtime tool name, if one is close.
    suggestion: Option<String>,
}

impl PolicyNameError {
    /// The names no runtime tool of the toolbox has, in the order the policy gave them.
    pub fn unknown(&self) -> Vec<&str> {
        self.unknown.iter().map(|name| name.name.as_str()).collect()
    }

    /// The toolbox's runtime tools when the request was composed.
    pub fn runtime_tools(&self) -> &[String] {
        &self.runtime
    }
}

impl fmt::Display for PolicyNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the policy names runtime tools the toolbox does not have:")?;
        for unknown in &self.unknown {
            write!(f, " `{}`", unknown.name)?;
            if unknown.set_tool {
                write!(
                    f,
                    " (a tool of the set `{}`: name it with `deny`, `hide` or `defer` and its \
                     typed name)",
                    self.set
                )?;
            } else if let Some(suggestion) = &unknown.suggestion {
                write!(f, " (did you mean `{suggestion}`?)")?;
            }
            f.write_str(";")?;
        }
        if self.runtime.is_empty() {
            f.write_str(" the toolbox has no runtime tools")?;
        } else {
            write!(f, " its runtime tools are: {}", self.runtime.join(", "))?;
        }
        f.write_str(". Fix the name in the policy, or add the tool to the toolbox.")
    }
}

impl std::error::Error for PolicyNameError {}

impl<T: ToolSet> Clone for Policy<T> {
    fn clone(&self) -> Self {
        Policy {
            autonomy: self.autonomy,
            denied: self.denied.clone(),
            hidden: self.hidden.clone(),
            deferred: self.deferred.clone(),
            runtime: self.runtime.clone(),
            set: PhantomData,
        }
    }
}

impl<T: ToolSet> fmt::Debug for Policy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |flags: &[bool]| -> Vec<&'static str> {
            T::Name::ALL
                .iter()
                .filter(|tool| flag(flags, tool.index()))
                .map(|tool| tool.as_str())
                .collect()
        };
        f.debug_struct("Policy")
            .field("set", &T::NAME)
            .field("autonomy", &self.autonomy)
            .field("denied", &names(&self.denied))
            .field("hidden", &names(&self.hidden))
            .field("deferred", &names(&self.deferred))
            .field("runtime_denied", &self.runtime.denied)
            .field("runtime_hidden", &self.runtime.hidden)
            .field("runtime_deferred", &self.runtime.deferred)
            .finish()
    }
}
