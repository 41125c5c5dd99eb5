//! The server's newline-delimited JSON-RPC transport, on stdio ([`stdio`]) or any pair of
//! byte streams ([`LineTransport::new`]): every line gets an answer.
//!
//! rmcp's own (`rmcp::transport::async_rw`) logs and skips a line it cannot parse, so the
//! client's call waits forever. Here a line that is a JSON-RPC message goes to rmcp as
//! it would; any other is answered (`incoming.rs` says with what): bytes that are not
//! UTF-8, text that is not JSON or nests too deep (`-32700`), JSON that is not a
//! message or a line past the length cap (`-32600`); a `tools/call` whose arguments hold a
//! number no reader can hold goes to the gate with their text. Blank lines and notifications
//! are not answered, as JSON-RPC asks.
//!
//! One task writes the connection: rmcp's messages and the answers to junk are queued to it
//! as whole lines, so no two interleave, and it holds back reading when the client does
//! not read what is written.

use super::incoming::{self, Incoming};
use super::lines::{Line, Lines};
use super::messages::Unit;
use futures_util::StreamExt;
use rmcp::RoleServer;
use rmcp::model::{GetExtensions, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::fmt;
use std::future::Future;
use std::io;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::codec::FramedRead;

/// The longest line a [`LineTransport`] reads unless
/// [`with_max_line_length`](LineTransport::with_max_line_length) says otherwise: 16 MiB,
/// rmcp's own cap. A longer line is answered `-32600` and skipped to its end, never held
/// whole.
pub const DEFAULT_MAX_LINE_LENGTH: usize = 16 * 1024 * 1024;

/// How many lines wait for the writer before queuing more waits for room.
const QUEUED: usize = 32;

/// The server's transport on this process's stdin and stdout, for
/// [`McpServer::serve`](super::McpServer::serve): `serve(toolset::mcp::stdio())`. Nothing
/// else may write to stdout meanwhile.
///
/// Unlike `rmcp::transport::stdio()`, it answers every line that is not a JSON-RPC
/// message instead of skipping it (see [`LineTransport`]).
pub fn stdio() -> LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
}

/// A server transport of newline-delimited JSON-RPC over a pair of byte streams (stdin and
/// stdout with [`stdio`], an accepted socket's halves, a child process's pipes, a
/// [`tokio::io::duplex`] end split), for [`McpServer::serve`](super::McpServer::serve): one
/// message a line each way, and an answer to every line that is not one.
///
/// - A JSON-RPC message is passed to rmcp exactly as rmcp's own transport passes it.
/// - Bytes that are not UTF-8, text that is not JSON, or JSON nested deeper than 127 levels:
///   `-32700 Parse error`, saying what was wrong and what to send instead.
/// - JSON that is not a JSON-RPC message (another version, `params` that are a string, a
///   batch): `-32600 Invalid Request`, saying what is wrong.
/// - A line longer than the cap ([`DEFAULT_MAX_LINE_LENGTH`] unless set): `-32600`; the line
///   is skipped to its end as it arrives, never held whole, and reading resumes after it.
/// - A `tools/call` whose arguments hold a number JSON can write and no reader can hold
///   (`1e400`): answered as the gate answers such text arguments, a result with
///   `isError: true` naming the field (`/count: a number cannot be read …`).
///
/// Each answer carries the request's `id` when one can be read from the line (before what
/// is wrong with it), `null` otherwise. Blank lines are skipped, and JSON shaped as a
/// notification (a `method`, no `id`) is never answered, as JSON-RPC asks.
///
/// ```
/// # use toolset::{tool, toolset};
/// # pub struct Notes(Vec<String>);
/// # /// List the notes.
/// # #[tool(tier = "read_only")]
/// # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
/// # toolset! { /// Notes.
/// #   pub NoteTools<Notes> = [list]; }
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
/// use toolset::mcp::{LineTransport, McpServer};
///
/// # fn main() -> std::io::Result<()> {
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let (server_end, client_end) = tokio::io::duplex(64 * 1024);
/// let (reader, writer) = tokio::io::split(server_end);
/// let server = McpServer::<NoteTools>::new(Notes(Vec::new()));
/// tokio::spawn(server.serve(LineTransport::new(reader, writer)));
///
/// let (from_server, mut to_server) = tokio::io::split(client_end);
/// let mut lines = BufReader::new(from_server).lines();
/// to_server.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"\n").await?;
/// let answer = lines.next_line().await?.unwrap_or_default();
/// assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32700"#), "{answer}");
/// # Ok(()) })
/// # }
/// ```
pub struct LineTransport<R, W> {
    lines: FramedRead<R, Lines>,
    writer: Writer<W>,
    /// The answer to a line that was no message, waiting for room in the writer's queue.
    answer: Option<Vec<u8>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Reads lines from `reader` and writes lines to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        LineTransport {
            lines: FramedRead::new(reader, Lines::new(DEFAULT_MAX_LINE_LENGTH)),
            writer: Writer::Idle(writer),
            answer: None,
        }
    }

    /// Reads lines of at most `bytes` bytes (their `\n` not counted); a longer one is
    /// answered `-32600` and skipped. [`DEFAULT_MAX_LINE_LENGTH`] unless set.
    pub fn with_max_line_length(mut self, bytes: usize) -> Self {
        *self.lines.decoder_mut() = Lines::new(bytes);
        self
    }
}

impl<R, W> fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineTransport")
            .field("max_line_length", &self.lines.decoder().max())
            .finish_non_exhaustive()
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let queue = self.writer.queue().cloned();
        async move {
            let line = line.map_err(io::Error::other)?;
            let queue = queue.ok_or_else(closed)?;
            let (written, done) = oneshot::channel();
            let queued = queue
                .send(Queued {
                    line,
                    written: Some(written),
                })
                .await;
            drop(queue);
            queued.map_err(|_| closed())?;
            done.await.map_err(|_| closed())?
        }
    }

    // Cancel-safe, as rmcp needs (it polls `receive` in a `select!`): `FramedRead::next`
    // keeps a partial line in its buffer, and an answer waits in `self.answer` until the
    // queue has room for it (a reservation dropped loses its place, not the answer).
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.answer.is_some() {
                let room = self.writer.queue()?.reserve().await.ok()?;
                if let Some(line) = self.answer.take() {
                    room.send(Queued {
                        line,
                        written: None,
                    });
                }
            }
            // The end of the stream, or a read error: the connection is over, as in rmcp.
            let line = match self.lines.next().await? {
                Ok(line) => line,
                Err(error) => {
                    tracing::debug!(%error, "reading the MCP client's line failed");
                    return None;
                }
            };
            let refusal = match line {
                Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(text) => match incoming::read(&text, Unit::Line) {
                    Incoming::Message(message) => return Some(message),
                    Incoming::CallWithArgumentsText(mut message, arguments) => {
                        if let JsonRpcMessage::Request(request) = &mut message {
                            request.request.extensions_mut().insert(arguments);
                        }
                        return Some(message);
                    }
                    Incoming::Refused(refusal) if refusal.notification => continue,
                    Incoming::Refused(refusal) => refusal,
                },
                Line::Oversized { head } => incoming::oversized(&head, self.lines.decoder().max()),
            };
            tracing::debug!(
                code = refusal.code.0,
                "answering a line that is not a JSON-RPC message"
            );
            let mut answer = refusal.to_json();
            answer.push(b'\n');
            self.answer = Some(answer);
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        if let Writer::Running { queue, task } = std::mem::replace(&mut self.writer, Writer::Closed)
        {
            // The writer ends once every line queued is written (or the stream broke).
            drop(queue);
            task.await.map_err(io::Error::other)?;
        }
        Ok(())
    }
}

/// The error of a line that cannot be written: the connection is closed or broke.
fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the connection to the MCP client is closed",
    )
}

/// The one writer of the connection.
enum Writer<W> {
    /// Not started yet: the first line starts it, inside the runtime serving.
    Idle(W),
    /// A task owning the stream, writing the lines queued in order.
    Running {
        queue: mpsc::Sender<Queued>,
        task: JoinHandle<()>,
    },
    /// Closed: no more lines.
    Closed,
}

/// A whole line to write, and who waits to know it was written.
struct Queued {
    line: Vec<u8>,
    written: Option<oneshot::Sender<io::Result<()>>>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> Writer<W> {
    /// The writer's queue, starting the writer on first use; `None` once closed.
    fn queue(&mut self) -> Option<&mpsc::Sender<Queued>> {
        if let Writer::Idle(_) = self
            && let Writer::Idle(stream) = std::mem::replace(self, Writer::Closed)
        {
            let (queue, lines) = mpsc::channel(QUEUED);
            *self = Writer::Running {
                queue,
                task: tokio::spawn(write_lines(stream, lines)),
            };
        }
        match self {
            Writer::Running { queue, .. } => Some(queue),
            Writer::Idle(_) | Writer::Closed => None,
        }
    }
}

/// Writes each line queued, whole and flushed, until the queue closes or the stream breaks
/// (the lines still queued then fail to be written, and so do later ones).
async fn write_lines<W: AsyncWrite + Unpin>(mut stream: W, mut queued: mpsc::Receiver<Queued>) {
    while let Some(Queued { line, written }) = queued.recv().await {
        let result = async {
            stream.write_all(&line).await?;
            stream.flush().await
        }
        .await;
        let broke = result.is_err();
        match (written, result) {
            (Some(written), result) => {
                let _ = written.send(result);
            }
            (None, Err(error)) => {
                tracing::debug!(%error, "writing an answer to the MCP client failed");
            }
            (None, Ok(())) => {}
        }
        if broke {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ClientRequest;
    use tokio::io::{AsyncBufReadExt, BufReader};

    type PipeReader = tokio::io::ReadHalf<tokio::io::DuplexStream>;
    type PipeWriter = tokio::io::WriteHalf<tokio::io::DuplexStream>;

    /// A transport over one end of a pipe, and the client's end: its lines and its writer.
    fn connected(
        max: usize,
    ) -> (
        LineTransport<PipeReader, PipeWriter>,
        tokio::io::Lines<BufReader<PipeReader>>,
        PipeWriter,
    ) {
        let (server_end, client_end) = tokio::io::duplex(1024);
        let (reader, writer) = tokio::io::split(server_end);
        let (from_server, to_server) = tokio::io::split(client_end);
        let transport = LineTransport::new(reader, writer).with_max_line_length(max);
        (transport, BufReader::new(from_server).lines(), to_server)
    }

    #[tokio::test]
    async fn junk_is_answered_between_the_messages_passed_on() {
        let (mut transport, mut answers, mut client) = connected(64);
        let written = tokio::spawn(async move {
            let long = "x".repeat(5000);
            let junk = format!(
                "not json\n\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"{long}\"}}\n\
                 {{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}}\n"
            );
            client.write_all(junk.as_bytes()).await.expect("written");
            client
        });
        let message = transport.receive().await.expect("the ping");
        assert!(
            matches!(&message, JsonRpcMessage::Request(request) if matches!(request.request, ClientRequest::PingRequest(_)))
        );
        let _client = written.await.expect("the writer");
        let not_json = answers.next_line().await.expect("read").unwrap_or_default();
        assert!(
            not_json.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#),
            "{not_json}"
        );
        let long = answers.next_line().await.expect("read").unwrap_or_default();
        assert!(
            long.starts_with(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600"#),
            "{long}"
        );
        // rmcp's messages go through the same writer.
        transport
            .send(JsonRpcMessage::error(
                rmcp::model::ErrorData::internal_error("x", None),
                None,
            ))
            .await
            .expect("sent");
        let sent = answers.next_line().await.expect("read").unwrap_or_default();
        assert!(sent.contains("-32603"), "{sent}");
        transport.close().await.expect("closed");
    }

    #[tokio::test]
    async fn an_unreadable_number_in_arguments_is_passed_on_with_their_text() {
        let (mut transport, _answers, mut client) = connected(1024);
        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"n\":1e400}}}\n")
            .await
            .expect("written");
        let Some(JsonRpcMessage::Request(request)) = transport.receive().await else {
            panic!("the call is passed on");
        };
        let text = request
            .request
            .extensions()
            .get::<incoming::ArgumentsText>();
        assert_eq!(text.map(|text| &*text.0), Some(r#"{"n":1e400}"#));
    }
}
