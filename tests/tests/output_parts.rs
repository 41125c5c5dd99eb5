//! A tool's output is small and holds its one part in place: a handler returning a
//! `String` costs no allocation beyond that `String` on its way to the report, and the
//! serialized form keeps every field it had.

use serde_json::json;
use toolset::output::{Content, IntoToolOutput, ToolOutputParts};
use toolset::{Json, ToolOutput};

/// How many allocations `run` makes on this thread (allocation-counter's global allocator
/// counts per thread, so the tests running beside this one do not count).
fn allocations<R>(run: impl FnOnce() -> R) -> (R, u64) {
    let mut result = None;
    let info = allocation_counter::measure(|| result = Some(run()));
    (result.expect("ran"), info.count_total)
}

#[test]
fn a_handler_returning_a_string_costs_no_allocation_beyond_the_string() {
    let text = String::from("3 invoices are overdue");
    let (output, made) = allocations(|| text.into_tool_output());
    assert_eq!(made, 0, "a text output allocated");
    let output = output.expect("a string is a tool result");
    assert_eq!(output.text_content(), "3 invoices are overdue");

    let returned: Result<String, String> = Ok("done".to_owned());
    let (output, made) = allocations(|| returned.into_tool_output());
    assert_eq!(made, 0, "a text output through Result allocated");
    assert_eq!(output.expect("ok").content().len(), 1);

    let (_, made) = allocations(ToolOutput::empty);
    assert_eq!(made, 0, "an empty output allocated");
}

#[test]
fn an_output_is_small_whatever_it_holds() {
    // Moved from the handler into the report: half of the 120 bytes it had with its
    // fields inline.
    assert!(std::mem::size_of::<ToolOutput>() <= 64);
}

#[test]
fn parts_added_one_by_one_read_in_order() {
    let mut output = ToolOutput::text("chart:").with_image("aGk=", "image/png");
    output.push(Content::Text {
        text: "end".to_owned(),
    });
    assert_eq!(output.content().len(), 3);
    assert_eq!(output.text_content(), "chart:\nend");
    let parts = output.into_parts();
    assert!(
        matches!(&parts.content[1], Content::Image { mime_type, .. } if mime_type == "image/png")
    );
}

#[test]
fn the_serialized_form_keeps_every_field() {
    let output = ToolOutput::structured(json!({"n": 1}))
        .with_metadata(json!({"host": true}))
        .activating(["convert"]);
    let written = serde_json::to_value(&output).expect("serializes");
    assert_eq!(
        written,
        json!({
            "content": [{"type": "text", "text": "{\"n\":1}"}],
            "structured": {"n": 1},
            "is_error": false,
            "metadata": {"host": true},
            "activate": ["convert"],
        })
    );
    let read: ToolOutput = serde_json::from_value(written).expect("reads back");
    assert_eq!(read, output);
    assert_eq!(read.structured_content(), Some(&json!({"n": 1})));
    assert_eq!(read.metadata(), Some(&json!({"host": true})));
    assert_eq!(read.activates(), ["convert"]);

    let plain = serde_json::to_value(ToolOutput::error("no such note")).expect("serializes");
    assert_eq!(
        plain,
        json!({"content": [{"type": "text", "text": "no such note"}], "is_error": true})
    );
}

#[test]
fn an_output_built_from_its_parts_equals_one_built_by_its_methods() {
    let built = ToolOutput::from(ToolOutputParts {
        content: vec![Content::Text {
            text: "[1,2]".to_owned(),
        }],
        structured: Some(json!([1, 2])),
        ..ToolOutputParts::default()
    });
    let returned = Json(vec![1, 2]).into_tool_output().expect("serializes");
    assert_eq!(built, returned);
    assert_eq!(returned.clone().into_parts(), built.into_parts());
}
