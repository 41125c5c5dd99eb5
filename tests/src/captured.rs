//! What a `tracing` subscriber receives, as text: [`Captured`], a layer that writes every
//! event and span it is given as one line, for the tests of what toolset (and rmcp under
//! it) records.

use std::fmt::{Debug, Write as _};
use std::sync::{Arc, Mutex, PoisonError};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;

/// Every field of every span and event the subscriber lets through, as text, each line
/// led by its target and then its level (`rmcp::service: level=DEBUG message=...`); a
/// value recorded on a span later is a line led by `(recorded)`.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<String>>);

impl Captured {
    /// Everything captured so far.
    pub fn text(&self) -> String {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn line(&self, head: String, record: impl FnOnce(&mut Fields)) {
        let mut fields = Fields(head);
        record(&mut fields);
        let mut text = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        text.push_str(&fields.0);
        text.push('\n');
    }
}

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl<S: Subscriber> Layer<S> for Captured {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let head = format!("{}: level={}", metadata.target(), metadata.level());
        self.line(head, |fields| event.record(fields));
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        let metadata = attrs.metadata();
        let head = format!("{}: level={}", metadata.target(), metadata.level());
        self.line(head, |fields| attrs.record(fields));
    }

    fn on_record(&self, _id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        self.line("(recorded):".to_owned(), |fields| values.record(fields));
    }
}
