//! Server-sent events framing: turns an SSE body, arriving in pieces cut anywhere, into
//! whole events (`event:` name and `data:` text), as the WHATWG EventSource rules frame
//! them. It knows nothing of any provider.

/// One dispatched event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) name: Option<String>,
    pub(crate) data: String,
}

/// Incremental SSE decoder.
///
/// Lines end at CRLF, LF or CR (a CR at the end of one piece may be the first half of a
/// CRLF split across two pieces, so it is remembered). A blank line dispatches the event
/// gathered so far; `:` lines are comments (keep-alives); `id:` and `retry:` concern
/// reconnection, not content, and are skipped. Bytes may be cut inside a UTF-8 character:
/// the partial character waits for the next piece.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    /// Bytes of a UTF-8 character cut by the end of the last byte piece.
    partial_char: Vec<u8>,
    /// The current line, not yet terminated.
    line: String,
    /// The last character seen was a CR: a LF right after it ends nothing.
    after_cr: bool,
    /// Whether the first character (a byte-order mark to drop) has been seen.
    started: bool,
    name: Option<String>,
    data: String,
    has_data: bool,
}

/// The bytes fed are not UTF-8, which every SSE body must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotUtf8 {
    /// How many bytes of the stream were fine before the bad one.
    pub(crate) valid_up_to: usize,
}

impl SseDecoder {
    /// Feeds text; complete events are pushed to `out`.
    pub(crate) fn push_str(&mut self, mut text: &str, out: &mut Vec<SseEvent>) {
        if !self.started && !text.is_empty() {
            self.started = true;
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        while !text.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if let Some(rest) = text.strip_prefix('\n') {
                    text = rest;
                    continue;
                }
            }
            match text.find(['\r', '\n']) {
                None => {
                    self.line.push_str(text);
                    return;
                }
                Some(end) => {
                    self.line.push_str(&text[..end]);
                    self.after_cr = text.as_bytes()[end] == b'\r';
                    text = &text[end + 1..];
                    let line = std::mem::take(&mut self.line);
                    self.line_ended(&line, out);
                }
            }
        }
    }

    /// Feeds bytes, which may stop inside a UTF-8 character. `fed_before` is how many
    /// bytes earlier calls fed, so an error can say where in the body the bad byte is.
    pub(crate) fn push_bytes(
        &mut self,
        bytes: &[u8],
        fed_before: usize,
        out: &mut Vec<SseEvent>,
    ) -> Result<(), NotUtf8> {
        // The start of the joined buffer, as an offset into the whole body.
        let start = fed_before.saturating_sub(self.partial_char.len());
        let mut joined = std::mem::take(&mut self.partial_char);
        joined.extend_from_slice(bytes);
        let (text, rest, invalid) = match std::str::from_utf8(&joined) {
            Ok(text) => (text, &[][..], false),
            Err(error) => {
                let (valid, rest) = joined.split_at(error.valid_up_to());
                // `valid` is UTF-8: from_utf8 just said so.
                let text = std::str::from_utf8(valid).unwrap_or_default();
                (text, rest, error.error_len().is_some())
            }
        };
        self.push_str(text, out);
        if invalid {
            return Err(NotUtf8 {
                valid_up_to: start + text.len(),
            });
        }
        self.partial_char = rest.to_vec();
        Ok(())
    }

    /// The body has ended: an unterminated last line still counts, and an event without
    /// its closing blank line is dispatched (what it holds is checked by the caller).
    /// `Err` when the body ends inside a UTF-8 character.
    pub(crate) fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<(), usize> {
        if !self.partial_char.is_empty() {
            return Err(self.partial_char.len());
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_ended(&line, out);
        }
        self.dispatch(out);
        Ok(())
    }

    fn line_ended(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.name = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let name = self.name.take();
        if std::mem::take(&mut self.has_data) {
            out.push(SseEvent {
                name,
                data: std::mem::take(&mut self.data),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(pieces: &[&str]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::default();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.push_str(piece, &mut out);
        }
        decoder.end(&mut out).expect("no partial character");
        out
    }

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            name: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn frames_events_on_blank_lines_with_any_line_ending() {
        let expected = vec![event(Some("a"), "1"), event(None, "2\n3")];
        for body in [
            "event: a\ndata: 1\n\ndata: 2\ndata: 3\n\n",
            "event: a\r\ndata: 1\r\n\r\ndata: 2\r\ndata: 3\r\n\r\n",
            "event: a\rdata: 1\r\rdata: 2\rdata: 3\r\r",
        ] {
            assert_eq!(events(&[body]), expected, "{body:?}");
        }
    }

    #[test]
    fn a_crlf_split_between_pieces_is_one_line_ending() {
        assert_eq!(
            events(&["data: 1\r", "\n\r", "\ndata: 2\r\n\r\n"]),
            vec![event(None, "1"), event(None, "2")]
        );
    }

    #[test]
    fn comments_ids_and_a_byte_order_mark_are_not_content() {
        assert_eq!(
            events(&["\u{feff}: keep-alive\nid: 7\nretry: 10\ndata:x\n\n"]),
            vec![event(None, "x")]
        );
    }

    #[test]
    fn the_last_event_counts_without_its_blank_line() {
        assert_eq!(
            events(&["data: 1\n\ndata: 2"]),
            vec![event(None, "1"), event(None, "2")]
        );
    }

    #[test]
    fn bytes_cut_inside_a_character_wait_for_the_rest() {
        let body = "data: \"héllo\"\n\n".as_bytes();
        let cut = body.iter().position(|b| *b == 0xc3).expect("an é") + 1;
        let mut decoder = SseDecoder::default();
        let mut out = Vec::new();
        decoder
            .push_bytes(&body[..cut], 0, &mut out)
            .expect("partial is fine");
        decoder
            .push_bytes(&body[cut..], cut, &mut out)
            .expect("completed");
        decoder.end(&mut out).expect("nothing pending");
        assert_eq!(out, vec![event(None, "\"héllo\"")]);
    }

    #[test]
    fn invalid_utf8_is_reported_and_a_cut_character_at_the_end_too() {
        let mut decoder = SseDecoder::default();
        let mut out = Vec::new();
        assert!(decoder.push_bytes(b"data: \xff\n\n", 0, &mut out).is_err());
        let mut decoder = SseDecoder::default();
        decoder
            .push_bytes(b"data: \xc3", 0, &mut out)
            .expect("maybe completed later");
        assert_eq!(decoder.end(&mut out), Err(1));
    }
}
