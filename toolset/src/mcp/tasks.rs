//! Long calls as tasks: the MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`).
//!
//! A `tools/call` of a tool the host opted in
//! ([`McpServer::run_as_task`](super::McpServer::run_as_task),
//! [`McpServer::run_as_task`](super::McpServer::run_as_task) by name), from a client that declared the extension, is gated
//! as every call is; a call the gate passed then runs as a task: the client is answered at
//! once with the task's id (`CreateTaskResult`), and the rest of the call (the human's
//! approval when it is withheld, then the one `apply`) runs on its own, its result kept here
//! for `tasks/get`. A task changes only *when* the result is delivered, never what runs.
//! This file is the table and the `tasks/*` requests; which calls become tasks, and
//! running them, is `as_task.rs`.
//!
//! The table is bounded ([`TaskLimits`]): a result is kept for the time to live after its
//! task ended, and the table holds at most so many tasks and so many bytes of results; past
//! a bound the oldest ended tasks are released first. A table full of running tasks starts
//! no more: the call is answered the ordinary way.

use super::messages;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, DetailedTask, ErrorData, GetTaskResult, InputRequests, JsonObject, Task,
    TaskPayload, TaskStatus,
};
use rmcp::service::RequestContext;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How long a task's result is kept after the task ended, unless
/// [`TaskLimits::with_ttl`] says otherwise: five minutes.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(300);

/// How many tasks the server keeps at once (running or ended), unless
/// [`TaskLimits::with_max_tasks`] says otherwise.
pub const DEFAULT_MAX_TASKS: usize = 256;

/// How many bytes of ended tasks' results the server keeps at once (each result counted
/// as its JSON), unless [`TaskLimits::with_max_bytes`] says otherwise: 16 MiB.
pub const DEFAULT_MAX_TASK_BYTES: usize = 16 * 1024 * 1024;

/// How often a client is asked to poll `tasks/get`, unless
/// [`TaskLimits::with_poll_interval`] says otherwise.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The bounds on what the server keeps of its tasks
/// ([`McpServer::with_task_limits`](super::McpServer::with_task_limits)).
///
/// A task's result is kept for the time to live after the task ended; beyond
/// [`max_tasks`](TaskLimits::with_max_tasks) tasks or
/// [`max_bytes`](TaskLimits::with_max_bytes) of results the oldest ended tasks are released
/// first. A released task's id is unknown to `tasks/get` from then on (JSON-RPC `-32602`,
/// saying so). Expiry is checked whenever the table is used, and memory stays within the
/// caps in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    ttl: Duration,
    max_tasks: usize,
    max_bytes: usize,
    poll_interval: Duration,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            ttl: DEFAULT_TASK_TTL,
            max_tasks: DEFAULT_MAX_TASKS,
            max_bytes: DEFAULT_MAX_TASK_BYTES,
            poll_interval: DEFAULT_TASK_POLL_INTERVAL,
        }
    }
}

impl TaskLimits {
    /// The defaults: [`DEFAULT_TASK_TTL`], [`DEFAULT_MAX_TASKS`], [`DEFAULT_MAX_TASK_BYTES`],
    /// [`DEFAULT_TASK_POLL_INTERVAL`].
    pub fn new() -> Self {
        TaskLimits::default()
    }

    /// How long an ended task's result is kept (sent to the client as `ttlMs`).
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How many tasks are kept at once, running or ended (at least one). When a new task
    /// would pass it, the oldest ended task is released; when every kept task is still
    /// running, the call is not made a task and is answered the ordinary way.
    pub fn with_max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max.max(1);
        self
    }

    /// How many bytes of results are kept at once, each result counted as its JSON. The
    /// oldest ended tasks are released to make room for a new result; a result larger than
    /// this alone is not kept, and its task ends `failed`, saying so.
    pub fn with_max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// How often the client is asked to poll (`pollIntervalMs`).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The time to live of an ended task's result.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The most tasks kept at once.
    pub fn max_tasks(&self) -> usize {
        self.max_tasks
    }

    /// The most bytes of results kept at once.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The poll interval suggested to clients.
    pub fn poll_interval(&self) -> Duration {
        self.poll_interval
    }
}

/// The server's tasks: which tools run as tasks, the limits, and the table (shared by
/// every session of the server, so a client without a session can poll from another
/// request).
#[derive(Clone, Default)]
pub(super) struct Tasks {
    /// The names of the tools whose calls run as tasks.
    tools: Arc<BTreeSet<String>>,
    limits: TaskLimits,
    table: Arc<Mutex<Table>>,
}

impl Tasks {
    /// Whether any tool runs as a task: only then is the extension declared.
    pub(super) fn any(&self) -> bool {
        !self.tools.is_empty()
    }

    /// Whether the calls of the tool `name` run as tasks.
    pub(super) fn runs(&self, name: &str) -> bool {
        self.tools.contains(name)
    }

    /// Runs the calls of the tool `name` as tasks too.
    pub(super) fn add(&mut self, name: String) {
        Arc::make_mut(&mut self.tools).insert(name);
    }

    /// The bounds on what is kept.
    pub(super) fn limits(&self) -> TaskLimits {
        self.limits
    }

    /// Keeps within `limits` from now on.
    pub(super) fn set_limits(&mut self, limits: TaskLimits) {
        self.limits = limits;
    }

    /// Marks `context` as the context of the call of task `id`, so the approval path
    /// reports it waiting for a human ([`asking_human`]).
    pub(super) fn mark(&self, context: &mut RequestContext<RoleServer>, id: String) {
        context.extensions.insert(InTask {
            tasks: self.clone(),
            id,
        });
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        // The table is consistent after every statement that changes it: a panic elsewhere
        // while it was held leaves nothing half-done.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new task for a call, with its cancellation; `None` when the table is full of
    /// running tasks.
    pub(super) fn start(&self) -> Option<(Task, CancellationToken)> {
        let mut table = self.table();
        table.sweep(self.limits.ttl);
        while table.entries.len() >= self.limits.max_tasks {
            if !table.release_oldest_ended() {
                return None;
            }
        }
        let id = task_id();
        let now = rmcp::task_manager::current_timestamp();
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(millis(self.limits.ttl))
            .with_poll_interval_ms(millis(self.limits.poll_interval));
        let cancel = CancellationToken::new();
        table.entries.insert(
            id,
            Entry {
                task: task.clone(),
                state: State::Working,
                cancel: cancel.clone(),
            },
        );
        Some((task, cancel))
    }

    /// The task `id` ended with `result`: `cancelled` if it was cancelled before it ended
    /// (by `tasks/cancel` or the client's going), else `completed` with the result, or
    /// `failed` when the result is too large to keep.
    pub(super) fn end(&self, id: &str, result: &CallToolResult) {
        let mut table = self.table();
        let Some(entry) = table.entries.get(id) else {
            return;
        };
        let (payload, bytes) = if entry.cancel.is_cancelled() {
            (TaskPayload::Cancelled, 0)
        } else {
            let object = match serde_json::to_value(result) {
                Ok(serde_json::Value::Object(object)) => object,
                _ => JsonObject::new(),
            };
            let bytes = serde_json::to_vec(&object).map_or(0, |json| json.len());
            if bytes > self.limits.max_bytes {
                let error = ErrorData::internal_error(
                    messages::task_result_too_large(bytes, self.limits.max_bytes),
                    None,
                );
                (
                    TaskPayload::Failed {
                        error: object_of(&error),
                    },
                    0,
                )
            } else {
                (TaskPayload::Completed { result: object }, bytes)
            }
        };
        // Room for the new result: the oldest ended results go first.
        while table.kept_bytes + bytes > self.limits.max_bytes {
            if !table.release_oldest_ended() {
                break;
            }
        }
        table.kept_bytes += bytes;
        if let Some(entry) = table.entries.get_mut(id) {
            entry.state = State::Ended {
                payload,
                at: Instant::now(),
                bytes,
            };
            entry.touch();
        }
    }

    /// Marks the task `id` as waiting for a human (`input_required`), or working again.
    fn asking(&self, id: &str, asking: bool) {
        let mut table = self.table();
        if let Some(entry) = table.entries.get_mut(id)
            && !matches!(entry.state, State::Ended { .. })
        {
            entry.state = if asking {
                State::AskingHuman
            } else {
                State::Working
            };
            entry.touch();
        }
    }

    /// `tasks/get`: the task as it is now.
    pub(super) fn get(&self, id: &str) -> Result<GetTaskResult, ErrorData> {
        let mut table = self.table();
        table.sweep(self.limits.ttl);
        let entry = table.entries.get(id).ok_or_else(|| self.unknown(id))?;
        Ok(GetTaskResult::new(entry.detailed()))
    }

    /// Whether the table holds the task `id` (running, or ended and still kept).
    pub(super) fn holds(&self, id: &str) -> bool {
        let mut table = self.table();
        table.sweep(self.limits.ttl);
        table.entries.contains_key(id)
    }

    /// `tasks/cancel`: cancels the call's context (its handler sees its `ToolContext`'s
    /// token cancelled, or is stopped); the task then ends `cancelled`. A task already
    /// ended keeps its status.
    pub(super) fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        let mut table = self.table();
        table.sweep(self.limits.ttl);
        let entry = table.entries.get_mut(id).ok_or_else(|| self.unknown(id))?;
        if !matches!(entry.state, State::Ended { .. }) {
            entry.cancel.cancel();
            entry.task.status_message = Some(messages::TASK_CANCELLING.to_owned());
            entry.touch();
        }
        Ok(())
    }

    /// `tasks/update`: this server asks nothing in a task's `inputRequests` (the human is
    /// asked by the session's elicitation), so there is nothing to deliver; a known task
    /// is acknowledged, an unknown one refused.
    pub(super) fn update(&self, id: &str) -> Result<(), ErrorData> {
        let mut table = self.table();
        table.sweep(self.limits.ttl);
        match table.entries.contains_key(id) {
            true => Ok(()),
            false => Err(self.unknown(id)),
        }
    }

    fn unknown(&self, id: &str) -> ErrorData {
        ErrorData::invalid_params(
            messages::unknown_task(
                id,
                self.limits.ttl,
                self.limits.max_tasks,
                self.limits.max_bytes,
            ),
            None,
        )
    }
}

/// Every task kept, and the bytes of their results.
#[derive(Default)]
struct Table {
    entries: HashMap<String, Entry>,
    kept_bytes: usize,
}

impl Table {
    /// Releases the ended tasks whose results have been kept `ttl`.
    fn sweep(&mut self, ttl: Duration) {
        let mut released = 0;
        self.entries.retain(|_, entry| match &entry.state {
            State::Ended { at, bytes, .. } if at.elapsed() >= ttl => {
                released += bytes;
                false
            }
            _ => true,
        });
        self.kept_bytes -= released;
    }

    /// Releases the task that ended first; `false` when none has ended.
    fn release_oldest_ended(&mut self) -> bool {
        let oldest = self
            .entries
            .iter()
            .filter_map(|(id, entry)| match entry.state {
                State::Ended { at, .. } => Some((at, id)),
                _ => None,
            })
            .min()
            .map(|(_, id)| id.clone());
        let Some(entry) = oldest.and_then(|id| self.entries.remove(&id)) else {
            return false;
        };
        if let State::Ended { bytes, .. } = entry.state {
            self.kept_bytes -= bytes;
        }
        true
    }
}

/// One task.
struct Entry {
    task: Task,
    state: State,
    /// The call's cancellation: its `ToolContext`'s token.
    cancel: CancellationToken,
}

impl Entry {
    fn touch(&mut self) {
        self.task.last_updated_at = rmcp::task_manager::current_timestamp();
    }

    fn detailed(&self) -> DetailedTask {
        let mut task = self.task.clone();
        let payload = match &self.state {
            State::Working => TaskPayload::Working,
            State::AskingHuman => {
                task.status_message = Some(messages::TASK_AWAITING_APPROVAL.to_owned());
                TaskPayload::InputRequired {
                    input_requests: InputRequests::new(),
                }
            }
            State::Ended { payload, .. } => payload.clone(),
        };
        DetailedTask::new(task, payload)
    }
}

enum State {
    Working,
    /// The call was withheld and a human is being asked (by the session's elicitation).
    AskingHuman,
    Ended {
        payload: TaskPayload,
        at: Instant,
        /// The bytes of the result kept (0 for none).
        bytes: usize,
    },
}

/// A task's mark on its call's request context: how the approval path reports that the
/// call waits for a human.
#[derive(Clone)]
struct InTask {
    tasks: Tasks,
    id: String,
}

/// While alive, the task of the call of `context` (if it runs as one) reports
/// `input_required`: the call is withheld and a human is being asked.
pub(super) fn asking_human(context: &RequestContext<RoleServer>) -> Option<AskingHuman> {
    let in_task = context.extensions.get::<InTask>()?.clone();
    in_task.tasks.asking(&in_task.id, true);
    Some(AskingHuman(in_task))
}

/// See [`asking_human`]; dropping it makes the task `working` again.
pub(super) struct AskingHuman(InTask);

impl Drop for AskingHuman {
    fn drop(&mut self) {
        self.0.tasks.asking(&self.0.id, false);
    }
}

/// 128 random bits from the operating system, as 32 hex digits.
fn task_id() -> String {
    crate::digest::random_hex::<16>("a task id")
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn object_of(error: &ErrorData) -> JsonObject {
    match serde_json::to_value(error) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}
