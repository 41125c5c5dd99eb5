//! A call's progress reports as MCP `notifications/progress`, in bounded memory.
//!
//! Reports go into a short queue that one forwarding task drains, a notification at a
//! time, waiting for each to be written. The task is spawned by the first report: a call
//! whose handler never reports costs one small allocation and no task, which matters
//! because rmcp's client puts a `progressToken` on every request. A client that reads as
//! fast as the tool reports gets every report, in order; one that reads slowly (or not at
//! all) gets fewer, never a growing queue: once [`QUEUED`] reports wait, a new one replaces
//! the newest waiting, so the latest report is always among those that go out.

use crate::context::{Progress, ProgressSink};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
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

/// How long the result waits for the reports still queued to be written, when the
/// client is slow to read them.
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// The sink a call's context reports into, with what its forwarding task needs.
struct Mailbox {
    /// The `Arc` this mailbox lives in, handed to the task when the first report spawns it.
    this: Weak<Mailbox>,
    queue: Mutex<Queue>,
    /// Wakes the task: a report arrived, or the call is over. (`notify_one` keeps a
    /// permit when the task is not waiting, so no wake-up is lost.)
    arrived: Notify,
    /// Set once the call is over: the task sends what is queued, then stops.
    done: AtomicBool,
    peer: Peer<RoleServer>,
    token: ProgressToken,
    /// The runtime serving the request: a handler may report from a thread of its own.
    runtime: Handle,
}

/// The reports waiting, and the task sending them once there is one.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<Progress>,
    /// Whether the first report has spawned the task.
    spawned: bool,
    /// The task, until the end of the call takes it to wait for it.
    task: Option<JoinHandle<()>>,
}

impl ProgressSink for Mailbox {
    fn report(&self, _call_id: &str, progress: Progress) {
        // A report after the result has no request left to go with.
        if self.done.load(Ordering::Acquire) {
            return;
        }
        let mut queue = self.lock();
        if queue.waiting.len() >= QUEUED {
            // Coalesce: the newest waiting report is superseded by this one.
            queue.waiting.pop_back();
        }
        queue.waiting.push_back(progress);
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
}

impl Mailbox {
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

/// The forwarding task: sends the queued reports in order until the call is over and the
/// queue empty, or the client is gone.
async fn forward(mailbox: Arc<Mailbox>) {
    loop {
        let next = mailbox.lock().waiting.pop_front();
        let progress = match next {
            Some(progress) => progress,
            // Once the call is over, only what is queued goes out.
            None if mailbox.done.load(Ordering::Acquire) => break,
            None => {
                mailbox.arrived.notified().await;
                continue;
            }
        };
        let mut params = ProgressNotificationParam::new(mailbox.token.clone(), progress.progress);
        params.total = progress.total;
        params.message = progress.message;
        // The client may be gone; the call goes on regardless.
        if mailbox.peer.notify_progress(params).await.is_err() {
            break;
        }
    }
}

/// One request's progress forwarding, held by the code answering it.
pub(crate) struct Forwarder {
    mailbox: Arc<Mailbox>,
}

impl Forwarder {
    /// A sink for the call's context, sending its reports to `peer` under `token`; no task
    /// runs until the first report. `None` outside a tokio runtime (rmcp serves on one).
    pub(crate) fn start(
        peer: Peer<RoleServer>,
        token: ProgressToken,
    ) -> Option<(Arc<dyn ProgressSink>, Self)> {
        let runtime = Handle::try_current().ok()?;
        let mailbox = Arc::new_cyclic(|this| Mailbox {
            this: this.clone(),
            queue: Mutex::default(),
            arrived: Notify::new(),
            done: AtomicBool::new(false),
            peer,
            token,
            runtime,
        });
        let sink: Arc<dyn ProgressSink> = Arc::clone(&mailbox) as Arc<dyn ProgressSink>;
        Some((sink, Forwarder { mailbox }))
    }

    /// Sends the reports still queued, then stops, even if a handler kept a copy of its
    /// context; gives up after a short while on a client that does not read. Returns at
    /// once when nothing was reported.
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
            let (_sink, silent) =
                Forwarder::start(service.peer().clone(), token.clone()).expect("in a runtime");
            assert_eq!(tasks(), before, "no task before a report");
            assert!(!silent.mailbox.lock().spawned);
            silent.finish().await;

            let (sink, reporting) =
                Forwarder::start(service.peer().clone(), token).expect("in a runtime");
            sink.report("call", report(1.0));
            sink.report("call", report(2.0));
            assert_eq!(tasks(), before + 1, "one task for all of a call's reports");
            reporting.finish().await;
            assert_eq!(tasks(), before, "the task ends with the call");
        });
    }
}
