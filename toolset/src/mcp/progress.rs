//! What a running call tells the client before its result: its progress reports as MCP
//! `notifications/progress` and its log messages as `notifications/message`, in order and
//! in bounded memory; and the refusal of a request asking for a level that is none of MCP's.
//!
//! Reports and messages go into one short queue that one forwarding task drains, a
//! notification at a time, waiting for each to be written. The task is spawned by the
//! first of them: a call whose handler never reports nor logs costs one small allocation
//! and no task, which matters because rmcp's client puts a `progressToken` on every
//! request. A client that reads as fast as the tool writes gets everything, in order; one
//! that reads slowly (or not at all) gets less, never a growing queue: once [`QUEUED`]
//! reports wait, a new one replaces the newest waiting report, so the latest report is
//! always among those that go out; once [`LOGS_QUEUED`] messages wait, new ones are
//! dropped and counted, and the client is told how many in a last warning.

use crate::context::{LogLevel, LogMessage, LogSink, Progress, ProgressSink};
use rmcp::model::ErrorData;
#[allow(
    deprecated,
    reason = "MCP logging is deprecated from 2026-07-28 on, still served"
)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// How many reports may wait for a slow client.
pub(crate) const QUEUED: usize = 32;

/// How many log messages may wait for a slow client.
pub(crate) const LOGS_QUEUED: usize = 64;

/// How long the result waits for the notifications still queued to be written, when the
/// client is slow to read them.
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// The sink a call's context reports and logs into, with what its forwarding task needs.
struct Mailbox {
    /// The `Arc` this mailbox lives in, handed to the task when the first report spawns it.
    this: Weak<Mailbox>,
    queue: Mutex<Queue>,
    /// Wakes the task: a report or message arrived, or the call is over. (`notify_one` keeps a
    /// permit when the task is not waiting, so no wake-up is lost.)
    arrived: Notify,
    /// Set once the call is over: the task sends what is queued, then stops.
    done: AtomicBool,
    peer: Peer<RoleServer>,
    /// The request's progress token; `None`: reports are not forwarded.
    token: Option<ProgressToken>,
    /// The least severe level of the messages forwarded; `None`: none is.
    level: Option<LogLevel>,
    /// The `logger` of the messages: the tool's name.
    logger: Option<String>,
    /// The runtime serving the request: a handler may report from a thread of its own.
    runtime: Handle,
}

/// What a call tells the client, in the order it told it.
enum Note {
    Progress(Progress),
    Log(LogMessage),
}

/// The notifications waiting, and the task sending them once there is one.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<Note>,
    /// How many of `waiting` are log messages.
    logs: usize,
    /// Log messages dropped because [`LOGS_QUEUED`] waited, not yet told to the client.
    dropped: usize,
    /// Whether the first report has spawned the task.
    spawned: bool,
    /// The task, until the end of the call takes it to wait for it.
    task: Option<JoinHandle<()>>,
}

impl ProgressSink for Mailbox {
    fn report(&self, _call_id: &str, progress: Progress) {
        self.push(|queue| {
            let reports = queue.waiting.len() - queue.logs;
            if reports >= QUEUED {
                // Coalesce: the newest waiting report is superseded by this one.
                let newest = queue
                    .waiting
                    .iter()
                    .rposition(|note| matches!(note, Note::Progress(_)));
                if let Some(newest) = newest {
                    queue.waiting.remove(newest);
                }
            }
            queue.waiting.push_back(Note::Progress(progress));
        });
    }
}

impl LogSink for Mailbox {
    fn level(&self) -> Option<LogLevel> {
        self.level
    }

    fn log(&self, _call_id: &str, message: LogMessage) {
        self.push(|queue| {
            if queue.logs >= LOGS_QUEUED {
                queue.dropped += 1;
            } else {
                queue.logs += 1;
                queue.waiting.push_back(Note::Log(message));
            }
        });
    }
}

impl Mailbox {
    /// Queues what `add` adds, spawning the forwarding task the first time, and wakes it.
    fn push(&self, add: impl FnOnce(&mut Queue)) {
        // What comes after the result has no request left to go with.
        if self.done.load(Ordering::Acquire) {
            return;
        }
        let mut queue = self.lock();
        add(&mut queue);
        if !queue.spawned {
            queue.spawned = true;
            // Spawning only schedules the task; it takes the lock once it runs.
            if let Some(mailbox) = self.this.upgrade() {
                queue.task = Some(self.runtime.spawn(forward(mailbox)));
            }
        }
        drop(queue);
        self.arrived.notify_one();
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding it; a poisoned queue still holds whole reports.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the call over and wakes the task, if any, to send what is left and stop.
    fn close(&self) {
        self.done.store(true, Ordering::Release);
        self.arrived.notify_one();
    }
}

/// The forwarding task: sends the queued notifications in order until the call is over and
/// the queue empty, or the client is gone.
async fn forward(mailbox: Arc<Mailbox>) {
    loop {
        let next = {
            let mut queue = mailbox.lock();
            let next = queue.waiting.pop_front();
            if matches!(next, Some(Note::Log(_))) {
                queue.logs -= 1;
            }
            // Once the backlog is out, the client learns what it missed.
            match (next, std::mem::take(&mut queue.dropped)) {
                (None, dropped) if dropped > 0 => Some(Note::Log(LogMessage {
                    level: LogLevel::Warning,
                    data: super::messages::logs_dropped(dropped, LOGS_QUEUED).into(),
                })),
                (next, dropped) => {
                    queue.dropped = dropped;
                    next
                }
            }
        };
        let sent = match next {
            Some(Note::Progress(progress)) => {
                let Some(token) = mailbox.token.clone() else {
                    continue;
                };
                let mut params = ProgressNotificationParam::new(token, progress.progress);
                params.total = progress.total;
                params.message = progress.message;
                mailbox.peer.notify_progress(params).await
            }
            Some(Note::Log(message)) => send_log(&mailbox, message).await,
            // Once the call is over, only what is queued goes out.
            None if mailbox.done.load(Ordering::Acquire) => break,
            None => {
                mailbox.arrived.notified().await;
                continue;
            }
        };
        // The client may be gone; the call goes on regardless.
        if sent.is_err() {
            break;
        }
    }
}

/// Sends one log message, as the tool's `logger`.
#[allow(
    deprecated,
    reason = "rmcp marks MCP logging deprecated (2026-07-28 deprecates it); still served"
)]
async fn send_log(mailbox: &Mailbox, message: LogMessage) -> Result<(), rmcp::ServiceError> {
    let mut params = LoggingMessageNotificationParam::new(mcp_level(message.level), message.data);
    if let Some(logger) = &mailbox.logger {
        params = params.with_logger(logger.clone());
    }
    mailbox.peer.notify_logging_message(params).await
}

/// A log level as rmcp writes it.
#[allow(
    deprecated,
    reason = "MCP logging is deprecated from 2026-07-28 on, still served"
)]
pub(super) fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// The level rmcp read.
#[allow(
    deprecated,
    reason = "MCP logging is deprecated from 2026-07-28 on, still served"
)]
pub(super) fn log_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// Refuses a request on 2026-07-28 or later whose `_meta` names a log level that is none
/// of MCP's (`-32602`, naming the valid ones): taken as absent, the client would get no
/// messages and never learn why. Before 2026-07-28 the key is no part of the protocol.
pub(super) fn check_log_level(context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    if !super::input_required::speaks(context.protocol_version().as_ref()) {
        return Ok(());
    }
    let Some(value) = context.meta.get(LOG_LEVEL_KEY) else {
        return Ok(());
    };
    #[allow(deprecated, reason = "MCP logging is deprecated from 2026-07-28 on")]
    match context.meta.log_level() {
        Some(_) => Ok(()),
        None => Err(ErrorData::invalid_params(
            super::messages::invalid_log_level(value),
            None,
        )),
    }
}

/// The `_meta` key of a request's log level (2026-07-28 on).
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// One request's forwarding of progress and log messages, held by the code answering it.
pub(crate) struct Forwarder {
    mailbox: Arc<Mailbox>,
}

/// What a call's context is given to report and log into, when anything is forwarded.
pub(crate) struct Sinks {
    pub(crate) progress: Option<Arc<dyn ProgressSink>>,
    pub(crate) log: Option<Arc<dyn LogSink>>,
}

impl Forwarder {
    /// Sinks for the call's context, sending its reports to `peer` under `token` and its
    /// messages at or above `level` as `logger`; no task runs until the first of them.
    /// `None` when there is nothing to forward, or outside a tokio runtime (rmcp serves on
    /// one).
    pub(crate) fn start(
        peer: Peer<RoleServer>,
        token: Option<ProgressToken>,
        level: Option<LogLevel>,
        logger: Option<String>,
    ) -> Option<(Sinks, Self)> {
        if token.is_none() && level.is_none() {
            return None;
        }
        let runtime = Handle::try_current().ok()?;
        let reports = token.is_some();
        let logs = level.is_some();
        let mailbox = Arc::new_cyclic(|this| Mailbox {
            this: this.clone(),
            queue: Mutex::default(),
            arrived: Notify::new(),
            done: AtomicBool::new(false),
            peer,
            token,
            level,
            logger,
            runtime,
        });
        let sinks = Sinks {
            progress: reports.then(|| Arc::clone(&mailbox) as Arc<dyn ProgressSink>),
            log: logs.then(|| Arc::clone(&mailbox) as Arc<dyn LogSink>),
        };
        Some((sinks, Forwarder { mailbox }))
    }

    /// Sends the notifications still queued, then stops, even if a handler kept a copy of its
    /// context; gives up after a short while on a client that does not read. Returns at
    /// once when nothing was reported or logged.
    pub(crate) async fn finish(self) {
        self.mailbox.close();
        let task = self.mailbox.lock().task.take();
        if let Some(mut task) = task
            && tokio::time::timeout(FLUSH_LIMIT, &mut task).await.is_err()
        {
            task.abort();
        }
    }
}

impl Drop for Forwarder {
    /// A request dropped before its end (its connection closed) still stops its task.
    fn drop(&mut self) {
        self.mailbox.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    /// A server that answers nothing: only its peer is needed.
    struct Idle;
    impl rmcp::ServerHandler for Idle {}

    fn report(number: f64) -> Progress {
        Progress {
            progress: number,
            total: None,
            message: None,
        }
    }

    #[test]
    fn a_call_that_never_reports_spawns_no_task_and_the_first_report_spawns_one() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime builds");
        runtime.block_on(async {
            let (server_io, _client_io) = tokio::io::duplex(64 * 1024);
            let service = rmcp::service::serve_directly(Idle, server_io, None);
            let tasks = || Handle::current().metrics().num_alive_tasks();
            let token = ProgressToken(NumberOrString::Number(1));

            let before = tasks();
            let (_sinks, silent) =
                Forwarder::start(service.peer().clone(), Some(token.clone()), None, None)
                    .expect("in a runtime");
            assert_eq!(tasks(), before, "no task before a report");
            assert!(!silent.mailbox.lock().spawned);
            silent.finish().await;

            let (sinks, reporting) = Forwarder::start(
                service.peer().clone(),
                Some(token),
                Some(LogLevel::Info),
                None,
            )
            .expect("in a runtime");
            let sink = sinks.progress.expect("a progress sink with a token");
            let log = sinks.log.expect("a log sink with a level");
            sink.report("call", report(1.0));
            sink.report("call", report(2.0));
            log.log(
                "call",
                LogMessage {
                    level: LogLevel::Info,
                    data: "logged".into(),
                },
            );
            assert_eq!(
                tasks(),
                before + 1,
                "one task for all of a call's notifications"
            );
            reporting.finish().await;
            assert_eq!(tasks(), before, "the task ends with the call");
        });
    }
}
