//! The request's gate: the route of each call (what the request offers), the trifecta
//! rule over the program's exposure, calls from code, and the local search's answer.

use super::builder::Request;
use super::decision::Layout;
use crate::call::ToolCall;
use crate::consumer::Format;
use crate::consumer::callers::allowed_callers_value;
use crate::consumer::list::tool_value_as;
use crate::consumer::openai_responses::namespace;
use crate::exposure::Exposure;
use crate::gate::Rejected;
use crate::gate::{Checked, Route, check_one, check_program};
use crate::job::ToolRef;
use crate::output::ToolOutput;
use crate::plan::Plan;
use crate::plan::Split;
use crate::policy::ToolKey;
use crate::policy::{Availability, Ruled, Trifecta};
use crate::search::{SEARCH_TOOL_NAME, SearchArgs, nothing_found, search};
use crate::set::ToolName;
use crate::set::ToolSet;
use crate::spec::Labels;
use crate::spec::ToolSpec;
use crate::toolbox::Namespace;
use crate::verify::CallProblem;
use crate::verify::ProblemKind;
use crate::{messages, trace};
use serde_json::{Value, json};
use std::sync::Arc;

impl<'p, T: ToolSet> Request<'p, T> {
    /// What a program of `calls` is judged under: the run's exposure, and what each of its
    /// calls reads (by the labels of the tool it names, as the model may know it in this
    /// request: a concealed tool adds nothing, so no message names it). `None` when no
    /// call of the program sends outside: the rule has nothing to hold back.
    pub(super) fn program_exposure(&self, calls: &[ToolCall]) -> Option<Exposure> {
        // A set none of whose tools sends, with no runtime tools beside it: nothing to
        // hold back, and nothing to look up.
        if self.toolbox.is_none() && !T::render_cache().sends_outside(T::specs()) {
            return None;
        }
        // Most programs send nothing outside: they cost one label lookup a call, and no
        // allocation.
        let sends = |call: &ToolCall| {
            self.labels_of(&call.name)
                .is_some_and(|l| l.sends_outside())
        };
        if !calls.iter().any(sends) {
            return None;
        }
        let mut exposure = Exposure::clone(&self.exposure);
        for call in calls {
            if let Some(labels) = self.labels_of(&call.name) {
                exposure.read(&call.name, labels);
            }
        }
        Some(exposure)
    }

    /// The labels of the tool called `name` as the model may know it in this request.
    pub(super) fn labels_of(&self, name: &str) -> Option<Labels> {
        match T::Name::from_name(name) {
            // The name found once, then `lookup`'s rule: a concealed tool has no labels here.
            Some(tool) => self.knows(tool).then(|| T::spec_of(tool).labels()),
            None if name == SEARCH_TOOL_NAME => None,
            None => self
                .runtime_tool(name)
                .map(|(_, tool)| tool.spec().labels()),
        }
    }

    /// Whether the trifecta rule holds back a call to `name` (labelled `labels`) in a
    /// program judged under `program`: the reason when it does.
    pub(super) fn held_back(
        &self,
        name: &str,
        labels: Labels,
        program: Option<&Exposure>,
    ) -> Option<String> {
        let program = program?;
        if !labels.sends_outside() || !program.is_exposed() || !self.policy.holds_back_sending(name)
        {
            return None;
        }
        Some(messages::trifecta_reason(
            name,
            program.private_from(),
            program.untrusted_from(),
        ))
    }

    /// Refuses a held-back call when the policy denies it ([`Trifecta::Deny`]).
    pub(super) fn refuse_held(
        &self,
        call: &ToolCall,
        labels: Labels,
        program: Option<&Exposure>,
    ) -> Result<(), CallProblem> {
        if self.policy.trifecta_rule() != Trifecta::Deny
            || self.held_back(&call.name, labels, program).is_none()
        {
            return Ok(());
        }
        let Some(program) = program else {
            return Ok(());
        };
        Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::Denied,
            message: messages::trifecta_denied(
                &call.name,
                program.private_from(),
                program.untrusted_from(),
            ),
        })
    }

    /// Whether the model's code may call the tool at `index` (the request's one index
    /// space) in this request: the request runs code, and the policy lets code call it.
    /// What the list renders and the gate permits.
    pub(super) fn code_may_call(&self, index: usize) -> bool {
        self.code_execution && self.policy.code_may_call(self.ruled_at(index))
    }

    /// `Err` when `call` comes from code and `allowed` says code may not make it: the
    /// problem that tells the model to call the tool directly.
    pub(super) fn refuse_from_code(
        &self,
        call: &ToolCall,
        allowed: bool,
    ) -> Result<(), CallProblem> {
        if call.is_from_code() && !allowed {
            return Err(CallProblem {
                call_id: call.id.clone(),
                name: call.name.clone(),
                kind: ProblemKind::NotFromCode,
                message: messages::not_from_code(&call.name),
            });
        }
        Ok(())
    }

    /// Verifies the model's whole program against what this request offers, then splits it
    /// by tier: calls whose tier the policy's autonomy allows may run, the others (and every
    /// propose-only tool's) become proposals for a human. One bad call rejects the program,
    /// and [`Rejected`] answers every call of it. A call to a tool the request does not
    /// offer is rejected as unknown, its message listing what is offered; a tool declared
    /// only for the history is refused. A call to the local search tool is answered here,
    /// at once.
    ///
    /// The one gate, for the set's tools and the toolbox's alike (the set's own gate is
    /// this, see [`Request`]). A call to a tool the request plainly permits costs no walk
    /// of the set and no snapshot of the toolbox.
    pub fn gate(&self, calls: impl IntoIterator<Item = ToolCall>) -> Result<Plan<T>, Rejected> {
        let span = trace::gate();
        let _in_gate = span.enter();
        let calls: Vec<ToolCall> = calls.into_iter().collect();
        // The gate's layout costs a walk of the whole set: it is built only for a call that
        // is not simply to a permitted tool (see `permits`).
        let mut split = Split::new(self.policy, calls.len());
        let program = self.program_exposure(&calls);
        let program = program.as_ref();
        let checked = check_program::<T>(
            calls,
            |call| self.route(call, program),
            |index, call, checked| {
                let held = match &checked {
                    Checked::Call(job) => self.held_back(&call.name, job.spec().labels(), program),
                    Checked::Answered(_) => None,
                };
                split.keep(index, call, checked, held)
            },
        );
        let calls = checked.inspect_err(|rejected| trace::record_rejected::<T>(&span, rejected))?;
        let plan = split.into_plan(calls, self.concealed());
        trace::record_planned(
            &span,
            plan.calls().len(),
            plan.approved().count(),
            plan.proposals().len(),
        );
        Ok(plan)
    }

    /// Checks one call as [`gate`](Self::gate) would check it in a program of that call
    /// alone: `Ok` exactly when `gate([call])` builds a plan, and otherwise the very
    /// problems its [`Rejected`] holds (an empty id, then the call's own: a name this
    /// request does not permit, arguments that do not fit). Nothing is split by tier and
    /// nothing is proposed.
    ///
    /// This is the early verdict on a call a stream has just completed (see
    /// [`crate::stream`]): it is for showing while the model is still writing. What runs is
    /// still decided by gating the whole program, where a call that passes here can be
    /// rejected with the others (a call id another call also uses, say). A call to the
    /// local tool search is answered to be checked, as the gate answers it.
    pub fn check(&self, call: &ToolCall) -> Result<(), Vec<CallProblem>> {
        let program = self.program_exposure(std::slice::from_ref(call));
        check_one::<T>(call, |call| self.route(call, program.as_ref()))
    }

    /// What the gate would let a human approve of `call`, under this request's policy now:
    /// a tool of the set the policy neither denies nor conceals (offered or deferred: a human
    /// approving it needs no search to have activated it), or a runtime tool of the
    /// request's toolbox. Its arguments are checked by the caller.
    ///
    /// Under [`Trifecta::Deny`] a send the rule holds back in the run as the request sees
    /// it now ([`exposure`](Self::exposure)) is refused here too: a human's approval does
    /// not lift a policy's refusal, whether the call was proposed for its tier before the
    /// run read both kinds or for the rule under a policy that escalated then.
    pub(crate) fn approvable(&self, call: &ToolCall) -> Result<ToolRef<T>, CallProblem> {
        let program = self.program_exposure(std::slice::from_ref(call));
        if let Some(tool) = self.lookup(&call.name)
            && !self.policy.is_denied(tool)
        {
            self.refuse_from_code(call, self.code_may_call(tool.index()))?;
            self.refuse_held(call, T::spec_of(tool).labels(), program.as_ref())?;
            return Ok(ToolRef::Set(tool));
        }
        let runtime = match T::Name::from_name(&call.name) {
            Some(_) => None,
            None => self.runtime_tool(&call.name),
        };
        if let Some((index, tool)) = runtime
            && self.runtime_availability(tool) != Availability::Denied
        {
            self.refuse_from_code(call, self.code_may_call(index))?;
            self.refuse_held(call, tool.spec().labels(), program.as_ref())?;
            return Ok(ToolRef::Runtime(Arc::clone(tool)));
        }
        let known = self.lookup(&call.name).is_some() || runtime.is_some();
        let withheld = self
            .toolbox
            .and_then(|toolbox| toolbox.withheld(&call.name));
        let (kind, message) = if let Some(reason) = withheld {
            (ProblemKind::Denied, reason)
        } else if known {
            (ProblemKind::Denied, messages::denied(&call.name))
        } else {
            (
                ProblemKind::UnknownTool,
                self.unknown_tool_message(&call.name, self.decided()),
            )
        };
        Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind,
            message,
        })
    }

    /// What this request conceals (the policy's hidden tools it does not inject): apply
    /// refuses an output activating one as it refuses an unknown name.
    pub(crate) fn concealed(&self) -> crate::policy::Concealed {
        self.policy.concealed(&self.injected)
    }

    /// Whether the gate lets a call to the tool at `index` (the request's one index space)
    /// through: what `Request::layout` marks `permitted`, decided for one tool without
    /// walking the set. Offered, or deferred and activated, or (a tool of the set)
    /// injected unless denied. The one reading of the policy the layout and the gate's
    /// route share.
    pub(super) fn permits(&self, index: usize) -> bool {
        if let Some(tool) = self.runtime_at(index) {
            let name = tool.spec().name();
            return match self.runtime_availability(tool) {
                Availability::Offered => true,
                Availability::Deferred => self.activated.iter().any(|key| key.name() == name),
                Availability::Hidden | Availability::Denied => false,
            };
        }
        let tool = T::Name::ALL[index];
        match self.policy.availability(Ruled::Set(tool)) {
            Availability::Offered => true,
            Availability::Deferred => {
                self.activated.contains(&ToolKey::Set(tool)) || self.injected.contains(&tool)
            }
            Availability::Hidden => !self.policy.conceals(tool, &self.injected),
            Availability::Denied => false,
        }
    }

    /// Routes one call: to a permitted tool, to the search (answered), or a problem.
    pub(super) fn route(
        &self,
        call: &ToolCall,
        program: Option<&Exposure>,
    ) -> Result<Route<T>, CallProblem> {
        let problem = |kind, message| CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind,
            message,
        };
        if let Some(tool) = T::Name::from_name(&call.name) {
            let permitted = self.permits(tool.index());
            // Every test run checks the one-tool rule against the whole layout's.
            debug_assert_eq!(
                permitted,
                self.layout(None).permitted[tool.index()],
                "permits({}) disagrees with the layout",
                tool.as_str()
            );
            if permitted {
                self.refuse_from_code(call, self.code_may_call(tool.index()))?;
                self.refuse_held(call, T::spec_of(tool).labels(), program)?;
                return Ok(Route::Tool(ToolRef::Set(tool)));
            }
        }
        // From here on a concealed tool is the unknown name it looks like to the model:
        // neither "not available" (denied) nor "declared only" (history) may tell it exists.
        let tool = self.lookup(&call.name);
        let layout = self.decided();
        let runtime = match tool {
            Some(_) => None,
            None => self.runtime_tool(&call.name),
        };
        if let Some((index, runtime)) = runtime {
            if layout.permitted[index] {
                self.refuse_from_code(call, self.code_may_call(index))?;
                self.refuse_held(call, runtime.spec().labels(), program)?;
                return Ok(Route::Tool(ToolRef::Runtime(Arc::clone(runtime))));
            }
            if self.runtime_availability(runtime) == Availability::Denied {
                return Err(problem(ProblemKind::Denied, messages::denied(&call.name)));
            }
            if self.history.iter().any(|name| name == &call.name) {
                return Err(problem(
                    ProblemKind::Denied,
                    messages::declared_only(&call.name, &self.available(layout)),
                ));
            }
            // Deferred and not activated: unknown, as a compiled deferred tool is.
        }
        if let Some(reason) = self
            .toolbox
            .and_then(|toolbox| toolbox.withheld(&call.name))
        {
            // A proxied tool its server changed after it was pinned: say what changed.
            return Err(problem(ProblemKind::Denied, reason));
        }
        if call.name == SEARCH_TOOL_NAME && layout.search_callable {
            // The search's entry has no `allowed_callers`: only the model calls it.
            self.refuse_from_code(call, false)?;
            return self.answer_search(call).map(Route::Answered);
        }
        match tool {
            Some(tool) if self.policy.is_denied(tool) => {
                Err(problem(ProblemKind::Denied, messages::denied(&call.name)))
            }
            Some(tool) if self.history.iter().any(|name| name == tool.as_str()) => Err(problem(
                ProblemKind::Denied,
                messages::declared_only(&call.name, &self.available(layout)),
            )),
            _ => Err(problem(
                ProblemKind::UnknownTool,
                self.unknown_tool_message(&call.name, layout),
            )),
        }
    }

    pub(super) fn unknown_tool_message(&self, name: &str, layout: &Layout) -> String {
        let available = self.available(layout);
        let closest = crate::arguments::closest(name, &available);
        let mut message =
            messages::unknown_tool(&crate::arguments::shortened(name), closest, &available);
        if layout.search_callable {
            message.push_str(&messages::search_hint(SEARCH_TOOL_NAME));
        }
        message
    }

    /// Runs a local search call: its arguments, then the ranking over the tools this
    /// request defers. A bad pattern is an error result for this call only.
    pub(super) fn answer_search(&self, call: &ToolCall) -> Result<ToolOutput, CallProblem> {
        let args = SearchArgs::parse(&call.arguments.text()).map_err(|message| CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::InvalidArguments,
            message,
        })?;
        let set = T::specs();
        let mut candidates: Vec<usize> = T::Name::ALL
            .iter()
            .filter(|&&tool| self.searchable(tool))
            .map(|tool| tool.index())
            .collect();
        // The runtime tools the policy defers, numbered after the set's.
        let runtime = self.runtime();
        let deferred_runtime: Vec<usize> = (0..runtime.len())
            .filter(|&position| {
                self.runtime_availability(&runtime[position]) == Availability::Deferred
            })
            .collect();
        candidates.extend(deferred_runtime.iter().map(|position| set.len() + position));
        // The set's index is cached; one holding runtime tools is built for this search.
        let built;
        let index = if deferred_runtime.is_empty() {
            T::render_cache().search_index(set)
        } else {
            built = crate::search::Index::build_from(
                set.iter().chain(runtime.iter().map(|tool| tool.spec())),
            );
            &built
        };
        let found = match search(index, &candidates, &args) {
            Ok(found) => found,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        if found.is_empty() {
            return Ok(ToolOutput::text(nothing_found(&args)));
        }
        // Each found tool with its namespace (a runtime tool's, if it has one) and whether
        // the model's code may call it.
        let found: Vec<(&ToolSpec, Option<&Arc<Namespace>>, bool)> = found
            .iter()
            .filter_map(|&index| match index.checked_sub(set.len()) {
                None => set
                    .get(index)
                    .map(|spec| (spec, None, self.code_may_call(index))),
                Some(position) => runtime
                    .get(position)
                    .map(|tool| (tool.spec(), tool.namespace_of(), self.code_may_call(index))),
            })
            .collect();
        // A client-executed `tool_search_output` carries the loaded definitions, each as
        // this request's list has it (without `strict` where its budget took it away).
        let downgraded: Vec<String> = match self.format {
            Some(Format::OpenAiResponses) if self.strict => self
                .strict_downgrades()
                .into_iter()
                .map(|downgrade| downgrade.tool)
                .collect(),
            _ => Vec::new(),
        };
        let strict_for =
            |spec: &ToolSpec| self.strict && !downgraded.iter().any(|name| name == spec.name());
        let specs: Vec<&ToolSpec> = found.iter().map(|(spec, ..)| *spec).collect();
        let tools: Vec<Value> = match self.format {
            // A client-executed `tool_search_output` carries the loaded definitions, a
            // namespace's tools inside its entry as the list has them, each saying who may
            // call it as the list would.
            Some(format @ Format::OpenAiResponses) => {
                let mut tools: Vec<Value> = Vec::with_capacity(found.len());
                let mut namespaces: Vec<(&str, usize)> = Vec::new();
                for &(spec, namespace, from_code) in &found {
                    let with_callers = |mut tool: Value| {
                        let callers = allowed_callers_value(format, from_code)
                            .filter(|_| self.code_execution);
                        if let (Some(callers), Some(fields)) = (callers, tool.as_object_mut()) {
                            fields.insert("allowed_callers".into(), callers);
                        }
                        tool
                    };
                    let strict = strict_for(spec);
                    let Some(namespace) = namespace else {
                        tools.push(with_callers(tool_value_as(spec, format, strict)));
                        continue;
                    };
                    let label = namespace.label();
                    let inner = with_callers(namespace::inner_tool_as(spec, label, strict));
                    let at = namespaces.iter().find(|(known, _)| *known == label);
                    match at.and_then(|&(_, at)| tools.get_mut(at)) {
                        Some(entry) => {
                            if let Some(list) = entry.get_mut("tools").and_then(Value::as_array_mut)
                            {
                                list.push(inner);
                            }
                        }
                        None => {
                            namespaces.push((label, tools.len()));
                            tools.push(namespace::namespace(
                                label,
                                namespace.description(),
                                vec![inner],
                            ));
                        }
                    }
                }
                tools
            }
            _ => specs
                .iter()
                .map(|spec| json!({"name": spec.name(), "description": spec.description()}))
                .collect(),
        };
        Ok(ToolOutput::text(crate::search::found(&specs))
            .activating(specs.iter().map(|spec| spec.name()))
            .with_structured_content(json!({ "tools": tools })))
    }
}
