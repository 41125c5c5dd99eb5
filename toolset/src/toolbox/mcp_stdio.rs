//! The stdio transport of [`McpTools::connect_stdio`](super::McpTools::connect_stdio): the
//! server as a child process, one JSON-RPC message a line each way, like rmcp's own
//! `TokioChildProcess`, except for what the server writes that is not JSON-RPC.
//!
//! rmcp's transport skips such a line (at most answering it with an `Invalid Request`),
//! so a call whose answer was garbled waits forever. Here every line is read as rmcp
//! would read it, and one that is not a JSON-RPC message (not JSON, JSON of another shape,
//! a line past the length cap) fails every request waiting for an answer at once, with
//! an error of code [`NOT_JSON_RPC`]. The connection stays open: a server that printed a
//! stray line still answers the calls made after it.

use crate::mcp::incoming::is_notification;
use crate::mcp::lines::{Line, Lines};
use futures_util::StreamExt;
use rmcp::RoleClient;
use rmcp::model::{ClientNotification, ErrorCode, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::io;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::FramedRead;

/// The JSON-RPC error code of the error given to the requests waiting when the server
/// writes a line that is not JSON-RPC (in the range JSON-RPC leaves to implementations).
pub(super) const NOT_JSON_RPC: ErrorCode = ErrorCode(-32_099);

/// How long a closed server gets to exit after its stdin is closed, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// A child process serving MCP on its stdio.
pub(super) struct ChildStdio {
    /// Killed when dropped, if still running.
    child: Child,
    lines: FramedRead<ChildStdout, Lines>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// The ids of the requests sent and not answered yet.
    waiting: Arc<Mutex<HashSet<RequestId>>>,
    /// Errors made for waiting requests after a garbled line, delivered first.
    failed: VecDeque<RxJsonRpcMessage<RoleClient>>,
}

impl ChildStdio {
    /// Starts `command` with piped stdin and stdout (stderr is inherited).
    pub(super) fn spawn(mut command: Command) -> io::Result<ChildStdio> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other(
                "the child process has no piped stdin or stdout",
            ));
        };
        Ok(ChildStdio {
            child,
            lines: FramedRead::new(stdout, Lines::new(crate::mcp::DEFAULT_MAX_LINE_LENGTH)),
            stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            waiting: Arc::new(Mutex::new(HashSet::new())),
            failed: VecDeque::new(),
        })
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Transport<RoleClient> for ChildStdio {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        match &item {
            JsonRpcMessage::Request(request) => {
                self.waiting().insert(request.id.clone());
            }
            // A request the client gave up on is no longer waiting for anything.
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.waiting().remove(id);
                }
            }
            _ => {}
        }
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let stdin = Arc::clone(&self.stdin);
        async move {
            let line = line.map_err(io::Error::other)?;
            // One whole line under the lock: concurrent sends never interleave.
            let mut stdin = stdin.lock().await;
            let Some(stdin) = stdin.as_mut() else {
                return Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "the connection to the MCP server is closed",
                ));
            };
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    // Cancel-safe, as rmcp needs (it polls `receive` in a `select!`): the one await is
    // `FramedRead::next`, which keeps a partial line in its buffer.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            if let Some(error) = self.failed.pop_front() {
                return Some(error);
            }
            // End of stream or a read error: the connection is over, as in rmcp.
            let line = self.lines.next().await?.ok()?;
            match read(line) {
                Ok(Some(message)) => {
                    match &message {
                        JsonRpcMessage::Response(response) => {
                            self.waiting().remove(&response.id);
                        }
                        JsonRpcMessage::Error(error) => {
                            if let Some(id) = &error.id {
                                self.waiting().remove(id);
                            }
                        }
                        _ => {}
                    }
                    return Some(message);
                }
                Ok(None) => {}
                Err(NotJsonRpc) => {
                    let waiting: Vec<RequestId> = self.waiting().drain().collect();
                    self.failed.extend(waiting.into_iter().map(|id| {
                        JsonRpcMessage::error(
                            ErrorData::new(
                                NOT_JSON_RPC,
                                "the server wrote a line that is not JSON-RPC",
                                None,
                            ),
                            Some(id),
                        )
                    }));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // Closing stdin asks the server to exit (the MCP stdio shutdown); one that does
        // not within the grace period is killed.
        drop(self.stdin.lock().await.take());
        if tokio::time::timeout(EXIT_GRACE, self.child.wait())
            .await
            .is_err()
        {
            self.child.kill().await?;
        }
        Ok(())
    }
}

/// A line of the server's stdout that is not JSON-RPC.
#[derive(Debug, PartialEq, Eq)]
struct NotJsonRpc;

/// Reads a line as rmcp does (a UTF-8 byte order mark is dropped, and the line reader
/// dropped a `\r` before its end): a message, or nothing for an empty line or a
/// notification rmcp does not know (rmcp skips both).
fn read(line: Line) -> Result<Option<RxJsonRpcMessage<RoleClient>>, NotJsonRpc> {
    let Line::Text(line) = line else {
        return Err(NotJsonRpc);
    };
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line) {
        return Ok(Some(message));
    }
    // A notification of a method rmcp does not know (another protocol's, or an
    // extension) answers nothing and is skipped, as rmcp skips it.
    match serde_json::from_slice::<Value>(line) {
        Ok(message) if is_notification(&message) => Ok(None),
        _ => Err(NotJsonRpc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::bytes::BytesMut;

    #[test]
    fn garbage_is_told_from_messages_and_unknown_notifications() {
        let text = |line: &str| Line::Text(BytesMut::from(line.as_bytes()));
        assert_eq!(read(text("not json")).err(), Some(NotJsonRpc));
        assert_eq!(read(text("{\"hello\":\"world\"}")).err(), Some(NotJsonRpc));
        let head = BytesMut::new();
        assert_eq!(read(Line::Oversized { head }).err(), Some(NotJsonRpc));
        assert!(matches!(read(text("  ")), Ok(None)));
        // Another protocol's notification: skipped, never garbage.
        assert!(
            read(text(
                "{\"jsonrpc\":\"2.0\",\"method\":\"$/lsp\",\"params\":{}}"
            ))
            .is_ok()
        );
        assert!(matches!(
            read(text(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}"
            )),
            Ok(Some(_))
        ));
    }
}
