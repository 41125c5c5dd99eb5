//! A call's progress reports as MCP `notifications/progress`, in bounded memory.
//!
//! Reports go into a short queue that a forwarding task drains, one notification at a
//! time, waiting for each to be written. A client that reads as fast as the tool reports
//! gets every report; one that reads slowly (or not at all) gets fewer, never a growing
//! queue: once [`QUEUED`] reports wait, a new one replaces the newest waiting, so the
//! latest report is always among those that go out.

use crate::{Progress, ProgressSink};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How many reports may wait for a slow client.
pub(crate) const QUEUED: usize = 32;

/// How long the result waits for the reports still queued to be written, when the
/// client is slow to read them.
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// The sink a call's context reports into.
struct Mailbox {
    waiting: Mutex<VecDeque<Progress>>,
    arrived: Notify,
}

impl ProgressSink for Mailbox {
    fn report(&self, _call_id: &str, progress: Progress) {
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            if waiting.len() >= QUEUED {
                // Coalesce: the newest waiting report is superseded by this one.
                waiting.pop_back();
            }
            waiting.push_back(progress);
        }
        self.arrived.notify_one();
    }
}

impl Mailbox {
    fn next(&self) -> Option<Progress> {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }
}

/// The task forwarding one request's progress.
pub(crate) struct Forwarder {
    task: JoinHandle<()>,
    done: CancellationToken,
}

impl Forwarder {
    /// A sink for the call's context, and the task sending its reports to `peer` under
    /// `token`.
    pub(crate) fn start(
        peer: Peer<RoleServer>,
        token: ProgressToken,
    ) -> (Arc<dyn ProgressSink>, Self) {
        let mailbox = Arc::new(Mailbox {
            waiting: Mutex::new(VecDeque::new()),
            arrived: Notify::new(),
        });
        let done = CancellationToken::new();
        let finished = done.clone();
        let reports = Arc::clone(&mailbox);
        let task = tokio::spawn(async move {
            loop {
                let progress = match reports.next() {
                    Some(progress) => progress,
                    // Once the call is over, only what is queued goes out.
                    None if finished.is_cancelled() => break,
                    None => {
                        tokio::select! {
                            () = reports.arrived.notified() => {}
                            () = finished.cancelled() => {}
                        }
                        continue;
                    }
                };
                let mut params = ProgressNotificationParam::new(token.clone(), progress.progress);
                params.total = progress.total;
                params.message = progress.message;
                // The client may be gone; the call goes on regardless.
                if peer.notify_progress(params).await.is_err() {
                    break;
                }
            }
        });
        (mailbox, Forwarder { task, done })
    }

    /// Sends the reports still queued, then stops, even if a handler kept a copy of its
    /// context; gives up after a short while on a client that does not read.
    pub(crate) async fn finish(self) {
        self.done.cancel();
        let mut task = self.task;
        if tokio::time::timeout(FLUSH_LIMIT, &mut task).await.is_err() {
            task.abort();
        }
    }
}
