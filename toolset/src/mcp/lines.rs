//! Splitting a byte stream of newline-delimited JSON-RPC into lines, never holding more
//! than a cap of any one: the one line reader of MCP over stdio, for the server
//! ([`LineTransport`](super::LineTransport)) and for the client of another server's child
//! process (`toolbox::McpTools::connect_stdio`).
//!
//! A line past the cap is reported once, with its first bytes (where a request's `id`
//! usually is), and the rest of it is dropped as it arrives: reading resumes at its `\n`
//! without the line ever being held whole.

use std::io;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// How many first bytes of a line past the cap are kept ([`Line::Oversized`]): enough for
/// the `jsonrpc`, `id` and `method` that JSON-RPC writers put first.
const HEAD: usize = 4096;

/// One line of the stream.
#[derive(Debug)]
pub(crate) enum Line {
    /// A line, without its `\n` or a `\r` before it.
    Text(BytesMut),
    /// A line longer than the cap, dropped: its first bytes.
    Oversized {
        /// At most the first 4 KiB of it.
        head: BytesMut,
    },
}

/// Splits a stream into [`Line`]s, never holding more than `max` bytes of one (plus one
/// read's worth).
#[derive(Debug)]
pub(crate) struct Lines {
    max: usize,
    /// How much of the buffer is known to hold no `\n`.
    scanned: usize,
    /// Dropping the rest of an oversized line, up to its `\n`.
    discarding: bool,
}

impl Lines {
    /// Lines of at most `max` bytes (their `\n` not counted).
    pub(crate) fn new(max: usize) -> Lines {
        Lines {
            max,
            scanned: 0,
            discarding: false,
        }
    }

    /// The longest line read.
    pub(crate) fn max(&self) -> usize {
        self.max
    }
}

/// The first bytes of `line`, copied: the line itself is dropped.
fn head_of(line: &[u8]) -> BytesMut {
    BytesMut::from(&line[..line.len().min(HEAD)])
}

impl Decoder for Lines {
    type Item = Line;
    type Error = io::Error;

    fn decode(&mut self, buffer: &mut BytesMut) -> Result<Option<Line>, io::Error> {
        loop {
            let Some(at) = buffer[self.scanned..]
                .iter()
                .position(|byte| *byte == b'\n')
            else {
                if self.discarding {
                    buffer.clear();
                    self.scanned = 0;
                    return Ok(None);
                }
                if buffer.len() > self.max {
                    let head = head_of(buffer);
                    buffer.clear();
                    self.scanned = 0;
                    self.discarding = true;
                    return Ok(Some(Line::Oversized { head }));
                }
                self.scanned = buffer.len();
                return Ok(None);
            };
            let end = self.scanned + at;
            let mut line = buffer.split_to(end + 1);
            self.scanned = 0;
            if self.discarding {
                // The end of a line already reported as oversized.
                self.discarding = false;
                continue;
            }
            if end > self.max {
                return Ok(Some(Line::Oversized {
                    head: head_of(&line[..end]),
                }));
            }
            line.truncate(end);
            if line.last() == Some(&b'\r') {
                line.truncate(end - 1);
            }
            return Ok(Some(Line::Text(line)));
        }
    }

    fn decode_eof(&mut self, buffer: &mut BytesMut) -> Result<Option<Line>, io::Error> {
        // A last line without its `\n` is incomplete: dropped, as rmcp drops it.
        let line = self.decode(buffer)?;
        if line.is_none() {
            buffer.clear();
            self.scanned = 0;
        }
        Ok(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(max: usize, input: &[&[u8]]) -> Vec<Result<String, String>> {
        let mut decoder = Lines::new(max);
        let mut buffer = BytesMut::new();
        let mut out = Vec::new();
        for piece in input {
            buffer.extend_from_slice(piece);
            while let Some(line) = decoder.decode(&mut buffer).expect("no error") {
                out.push(match line {
                    Line::Text(text) => Ok(String::from_utf8_lossy(&text).into_owned()),
                    Line::Oversized { head } => Err(String::from_utf8_lossy(&head).into_owned()),
                });
            }
            // Never more than the cap and one piece is held.
            assert!(buffer.len() <= max + piece.len() + 1, "{}", buffer.len());
        }
        out
    }

    #[test]
    fn lines_split_across_reads_are_whole_without_their_line_ends() {
        assert_eq!(
            lines(100, &[b"{\"a\"", b":1}\r\n{\"b\":2}\n{\"c\""]),
            [Ok("{\"a\":1}".to_owned()), Ok("{\"b\":2}".to_owned())]
        );
    }

    #[test]
    fn an_oversized_line_is_reported_once_with_its_head_and_skipped_to_its_end() {
        let long = [b"{\"id\":7,".as_slice(), &[b'x'; 200]].concat();
        let head = String::from_utf8_lossy(&long).into_owned();
        assert_eq!(
            lines(100, &[&long, b"yyy", b"yyy\n{}\n"]),
            [Err(head.clone()), Ok("{}".to_owned())]
        );
        // Its `\n` in the same read.
        assert_eq!(
            lines(100, &[&[long.as_slice(), b"\n{}\n"].concat()]),
            [Err(head), Ok("{}".to_owned())]
        );
    }

    #[test]
    fn the_head_kept_of_an_oversized_line_is_bounded() {
        let long = vec![b'x'; 3 * HEAD];
        let out = lines(2 * HEAD, &[&long, b"\n"]);
        assert_eq!(out, [Err("x".repeat(HEAD))]);
    }
}
