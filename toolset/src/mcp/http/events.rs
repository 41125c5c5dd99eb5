//! The recent events of every call's stream, kept in memory for a client that comes back
//! with `Last-Event-ID` (SEP-1699), when the server closes calls' streams
//! ([`HttpConfig::with_sse_polling`](super::HttpConfig::with_sse_polling)).
//!
//! rmcp's session keeps a call's events only while the call runs: a client that comes back
//! after its result was sent (it waits the `retry` it was told) would find nothing. Here
//! each event is kept for [`KEPT_FOR`], at most [`KEPT`] of them, so the result waits for
//! the client. A replay sends what followed the client's last event, then what the call
//! sends next, until its result or for the server's hold (then the client comes back
//! again). An event's id is its stream's random token and its place in it: only a client
//! that saw an id can replay what followed it, and only on that stream.

use futures_util::stream;
use rmcp::model::JsonRpcMessage;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::store::{
    EventId, EventStore, EventStoreError, EventStream,
};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long an event is kept for a client to come back for it.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(60);

/// The most events kept, over every stream: the oldest goes first.
pub(crate) const KEPT: usize = 4096;

/// Recent events, in the order they were sent; shared with the replays waiting for more.
#[derive(Clone)]
pub(crate) struct RecentEvents {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Woken by every event kept.
    stored: Notify,
    /// How long a replay waits for the call's next events.
    hold: Duration,
}

impl RecentEvents {
    /// Events kept for a client to come back for, a replay waiting at most `hold` for more.
    pub(crate) fn new(hold: Duration) -> Self {
        RecentEvents {
            shared: Arc::new(Shared {
                state: Mutex::default(),
                stored: Notify::new(),
                hold,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Shared {
    /// The first event of the stream `token` after `place`, with its place.
    fn next_after(&self, token: &str, place: u64) -> Option<(ServerSseMessage, u64)> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .events
            .iter()
            .find(|kept| kept.token == token && kept.place > place)
            .map(|kept| (kept.event.clone(), kept.place))
    }
}

/// Whether `event` is the last of a call's stream: its result (or error).
fn ends_call(event: &ServerSseMessage) -> bool {
    event.message.as_deref().is_some_and(|message| {
        matches!(
            message,
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_)
        )
    })
}

#[derive(Default)]
struct State {
    /// Each stream's random token, by rmcp's stream id, while it has events kept.
    tokens: HashMap<String, String>,
    /// For each stream with events kept, by its token: its rmcp stream id and how many.
    live: HashMap<String, (String, usize)>,
    /// The events kept, oldest first.
    events: VecDeque<Kept>,
    /// The next event's place, over every stream.
    next: u64,
}

struct Kept {
    token: String,
    place: u64,
    at: Instant,
    event: ServerSseMessage,
}

impl State {
    /// Forgets what is too old, and the oldest while [`KEPT`] are kept (room for one
    /// more), each stream with its last event forgotten.
    fn evict(&mut self, now: Instant) {
        while let Some(oldest) = self.events.front() {
            let stale = now.duration_since(oldest.at) > KEPT_FOR;
            if !stale && self.events.len() < KEPT {
                break;
            }
            let Some(gone) = self.events.pop_front() else {
                break;
            };
            if let Some((_, left)) = self.live.get_mut(&gone.token) {
                *left -= 1;
                if *left == 0
                    && let Some((stream, _)) = self.live.remove(&gone.token)
                {
                    self.tokens.remove(&stream);
                }
            }
        }
    }
}

/// A stream's token: 128 random bits as hex.
fn token() -> String {
    crate::digest::random_hex::<16>("an event id")
}

/// Reads an event id: its stream's token and its place.
fn parse(id: &str) -> Option<(&str, u64)> {
    let (token, place) = id.split_once('-')?;
    Some((token, place.parse().ok()?))
}

#[async_trait::async_trait]
impl EventStore for RecentEvents {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        let now = Instant::now();
        let mut state = self.state();
        state.evict(now);
        let token = state
            .tokens
            .entry(stream_id.to_owned())
            .or_insert_with(token)
            .clone();
        state
            .live
            .entry(token.clone())
            .or_insert_with(|| (stream_id.to_owned(), 0))
            .1 += 1;
        let place = state.next;
        state.next += 1;
        let id = format!("{token}-{place}");
        let mut event = event.clone();
        event.event_id = Some(id.clone());
        state.events.push_back(Kept {
            token,
            place,
            at: now,
            event,
        });
        drop(state);
        self.shared.stored.notify_waiters();
        Ok(id)
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let (token, after) = parse(last_event_id).ok_or("not an event id of this server")?;
        {
            let mut state = self.state();
            state.evict(Instant::now());
            if !state.live.contains_key(token) {
                return Err("no such event: it was never sent, or it is too old".into());
            }
        }
        let shared = Arc::clone(&self.shared);
        let token = token.to_owned();
        let until = tokio::time::Instant::now() + shared.hold;
        let replay = stream::unfold(Some(after), move |after| {
            let shared = Arc::clone(&shared);
            let token = token.clone();
            async move {
                let after = after?;
                loop {
                    // Registered before looking, so an event kept meanwhile wakes it.
                    let stored = shared.stored.notified();
                    let mut stored = std::pin::pin!(stored);
                    stored.as_mut().enable();
                    if let Some((event, place)) = shared.next_after(&token, after) {
                        let next = (!ends_call(&event)).then_some(place);
                        return Some((event, next));
                    }
                    tokio::time::timeout_at(until, stored).await.ok()?;
                }
            }
        });
        Ok(Box::pin(replay))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn priming() -> ServerSseMessage {
        ServerSseMessage::retry(Duration::from_secs(1))
    }

    fn recent() -> RecentEvents {
        RecentEvents::new(Duration::from_millis(50))
    }

    async fn replayed(events: &RecentEvents, after: &str) -> Option<usize> {
        let replay = events.replay_events_after(after).await.ok()?;
        Some(replay.collect::<Vec<_>>().await.len())
    }

    #[tokio::test]
    async fn a_replay_holds_what_followed_on_that_stream_alone() {
        let events = recent();
        let first = events.store_event("a", &priming()).await.expect("kept");
        let _ = events.store_event("b", &priming()).await.expect("kept");
        let _ = events.store_event("a", &priming()).await.expect("kept");
        let last = events.store_event("a", &priming()).await.expect("kept");
        assert_eq!(
            replayed(&events, &first).await,
            Some(2),
            "two followed on `a`"
        );
        assert_eq!(replayed(&events, &last).await, Some(0));
        // A guessed id on a stream nobody saw: refused, not another stream's events.
        assert_eq!(
            replayed(&events, "00000000000000000000000000000000-0").await,
            None
        );
        assert_eq!(replayed(&events, "junk").await, None);
    }

    #[tokio::test]
    async fn the_oldest_go_first_beyond_the_bound() {
        let events = recent();
        let first = events.store_event("a", &priming()).await.expect("kept");
        let second = events.store_event("a", &priming()).await.expect("kept");
        for _ in 0..KEPT {
            let _ = events.store_event("b", &priming()).await.expect("kept");
        }
        assert_eq!(
            replayed(&events, &first).await,
            None,
            "stream `a` is forgotten"
        );
        assert_eq!(replayed(&events, &second).await, None);
        let state = events.state();
        assert!(state.events.len() <= KEPT, "{}", state.events.len());
        assert_eq!(state.tokens.len(), 1, "stream `a` released its token");
        assert_eq!(state.live.len(), 1);
    }

    #[tokio::test]
    async fn a_replay_waits_for_what_the_call_sends_next_until_its_result() {
        let events = RecentEvents::new(Duration::from_secs(10));
        let primed = events.store_event("a", &priming()).await.expect("kept");
        let mut replay = events.replay_events_after(&primed).await.expect("replays");
        let later = events.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let result = rmcp::model::ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::empty(()),
                rmcp::model::NumberOrString::Number(1),
            );
            let result = ServerSseMessage::from_message(result);
            let _ = later.store_event("a", &result).await;
            let _ = later.store_event("a", &priming()).await;
        });
        let result = tokio::time::timeout(Duration::from_secs(5), replay.next())
            .await
            .expect("the result comes while the replay waits")
            .expect("an event");
        assert!(ends_call(&result), "{result:?}");
        assert!(
            replay.next().await.is_none(),
            "the replay ends with the result"
        );
    }

    #[tokio::test]
    async fn a_replay_with_nothing_new_ends_after_the_hold() {
        let events = recent();
        let primed = events.store_event("a", &priming()).await.expect("kept");
        let replay = events.replay_events_after(&primed).await.expect("replays");
        let all = tokio::time::timeout(Duration::from_secs(5), replay.collect::<Vec<_>>())
            .await
            .expect("it ends after the hold");
        assert!(all.is_empty());
    }
}
