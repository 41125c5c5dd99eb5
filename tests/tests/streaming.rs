//! Tool calls from streamed responses, against streams recorded in each provider's shape
//! under `fixtures/streams/<provider>/` (SSE bodies as the API sends them, each beside the
//! non-streamed `response.json` of the same content; the tool search streams beside their
//! own `<name>.json`): the assembled program is the one the non-streamed parser reads,
//! every item kind it reads included (a client-executed tool search call), a hosted
//! search's results record what the non-streamed response records, calls come out as soon
//! as they are complete, any split of a body assembles the same, and broken streams are
//! errors naming the call.

use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;
use toolset::consumer::{Format, ProviderError};
use toolset::prelude::*;
use toolset::request::{Activations, Request};
use toolset::search::{Ranking, ToolSearch};
use toolset::stream::{
    Anthropic, CallStream, Gemini, OpenAiChat, OpenAiResponses, Protocol, StreamError,
    StreamErrorKind,
};
use toolset::{Autonomy, ToolCall, ToolError, tool, toolset};

fn fixture(path: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/streams")
        .join(path);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

fn fixture_json(path: &str) -> Value {
    serde_json::from_str(&fixture(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The calls a stream handed out along the way, and what `finish` gave.
type Assembled = (Vec<ToolCall>, Result<Vec<ToolCall>, StreamError>);

/// Feeds `pieces` in order; returns the calls handed out along the way and the result of
/// `finish`.
fn assemble<'a, P: Protocol>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Assembled {
    let mut stream = CallStream::<P>::new();
    let mut handed_out = Vec::new();
    for piece in pieces {
        match stream.feed_bytes(piece) {
            Ok(calls) => handed_out.extend(calls),
            Err(error) => return (handed_out, Err(error)),
        }
    }
    (handed_out, stream.finish())
}

/// Feeds text `pieces` in order, as [`assemble`] feeds bytes.
fn assemble_text<P: Protocol>(pieces: &[&str]) -> Assembled {
    let mut stream = CallStream::<P>::new();
    let mut handed_out = Vec::new();
    for piece in pieces {
        match stream.feed_sse(piece) {
            Ok(calls) => handed_out.extend(calls),
            Err(error) => return (handed_out, Err(error)),
        }
    }
    (handed_out, stream.finish())
}

fn assemble_whole<P: Protocol>(body: &str) -> Assembled {
    assemble::<P>([body.as_bytes()])
}

/// Feeds decoded events one by one.
fn assemble_events<P: Protocol>(events: &[Value]) -> Assembled {
    let mut stream = CallStream::<P>::new();
    let mut handed_out = Vec::new();
    for event in events {
        match stream.feed_event(event) {
            Ok(calls) => handed_out.extend(calls),
            Err(error) => return (handed_out, Err(error)),
        }
    }
    (handed_out, stream.finish())
}

/// The error a broken stream must give.
fn expect_error(result: Assembled) -> StreamError {
    match result.1 {
        Ok(program) => panic!("a broken stream assembled to {program:?}"),
        Err(error) => error,
    }
}

type Parser = fn(&Value) -> Result<Vec<ToolCall>, ProviderError>;

/// Every valid recorded stream, with the non-streamed response it must agree with.
fn valid_streams() -> Vec<(&'static str, &'static str, Parser)> {
    vec![
        (
            "openai_chat/parallel.sse",
            "openai_chat/response.json",
            ToolCall::from_openai_chat,
        ),
        (
            "openai_chat/interleaved.sse",
            "openai_chat/response.json",
            ToolCall::from_openai_chat,
        ),
        (
            "openai_responses/parallel.sse",
            "openai_responses/response.json",
            ToolCall::from_openai_responses,
        ),
        (
            "openai_responses/interleaved.sse",
            "openai_responses/response.json",
            ToolCall::from_openai_responses,
        ),
        (
            "anthropic/parallel.sse",
            "anthropic/response.json",
            ToolCall::from_anthropic,
        ),
        (
            "anthropic/interleaved.sse",
            "anthropic/response.json",
            ToolCall::from_anthropic,
        ),
        (
            "gemini/parallel.sse",
            "gemini/response.json",
            ToolCall::from_gemini,
        ),
    ]
}

/// Recorded streams of responses with a tool search in them, with the non-streamed response
/// each must agree with: a client-executed OpenAI Responses `tool_search_call` (a call of
/// the search tool), and each provider's hosted search (results the host records).
fn search_streams() -> Vec<(&'static str, &'static str, Parser)> {
    vec![
        (
            "openai_responses/client_search.sse",
            "openai_responses/client_search.json",
            ToolCall::from_openai_responses,
        ),
        (
            "openai_responses/hosted_search.sse",
            "openai_responses/hosted_search.json",
            ToolCall::from_openai_responses,
        ),
        (
            "anthropic/hosted_search.sse",
            "anthropic/hosted_search.json",
            ToolCall::from_anthropic,
        ),
    ]
}

/// Every valid recorded stream, whatever items it holds.
fn all_streams() -> Vec<(&'static str, &'static str, Parser)> {
    let mut streams = valid_streams();
    streams.extend(search_streams());
    streams
}

/// The hosted search results a stream has shown once all of `pieces` is fed, before
/// `finish`: what the host records before gating the program.
fn hosted_after(stream: &str, pieces: &[&[u8]]) -> Value {
    fn feed<P: Protocol>(pieces: &[&[u8]]) -> Value {
        let mut stream = CallStream::<P>::new();
        for piece in pieces {
            if stream.feed_bytes(piece).is_err() {
                break;
            }
        }
        stream.hosted_search()
    }
    match stream.split('/').next() {
        Some("openai_chat") => feed::<OpenAiChat>(pieces),
        Some("openai_responses") => feed::<OpenAiResponses>(pieces),
        Some("anthropic") => feed::<Anthropic>(pieces),
        Some("gemini") => feed::<Gemini>(pieces),
        other => panic!("no provider for {other:?}"),
    }
}

fn assemble_fixture(stream: &str, pieces: &[&[u8]]) -> Assembled {
    let pieces = pieces.iter().copied();
    match stream.split('/').next() {
        Some("openai_chat") => assemble::<OpenAiChat>(pieces),
        Some("openai_responses") => assemble::<OpenAiResponses>(pieces),
        Some("anthropic") => assemble::<Anthropic>(pieces),
        Some("gemini") => assemble::<Gemini>(pieces),
        other => panic!("no provider for {other:?}"),
    }
}

fn sorted(mut calls: Vec<ToolCall>) -> Vec<ToolCall> {
    calls.sort_by(|a, b| a.id.cmp(&b.id));
    calls
}

// ---- the program is the non-streamed parse -------------------------------------------

#[test]
fn every_recorded_stream_assembles_to_the_program_the_non_streamed_parser_reads() {
    for (stream, response, parse) in valid_streams() {
        let program = assembles_to_its_parse(stream, response, parse);
        assert_eq!(
            program.len(),
            3,
            "{stream}: every recorded response has three calls"
        );
    }
}

/// Assembles the recorded `stream` whole and checks that its program is what `parse`
/// reads in the recorded `response`, and that every call was handed out once, none
/// invented (perhaps in another order: interleaved calls complete out of order). The
/// program.
fn assembles_to_its_parse(stream: &str, response: &str, parse: Parser) -> Vec<ToolCall> {
    let body = fixture(stream);
    let (handed_out, program) = assemble_fixture(stream, &[body.as_bytes()]);
    let program = program.unwrap_or_else(|error| panic!("{stream}: {error}"));
    let expected =
        parse(&fixture_json(response)).unwrap_or_else(|error| panic!("{response}: {error}"));
    assert_eq!(program, expected, "{stream} against {response}");
    assert_eq!(sorted(handed_out), sorted(expected), "{stream}");
    program
}

#[test]
fn a_streamed_tool_search_assembles_to_the_program_the_non_streamed_parser_reads() {
    for (stream, response, parse) in search_streams() {
        assembles_to_its_parse(stream, response, parse);
    }
    // The client-executed search is a call of the search tool, in its place in the output.
    let (_, program) =
        assemble_whole::<OpenAiResponses>(&fixture("openai_responses/client_search.sse"));
    let program = program.expect("a valid stream");
    assert_eq!(
        program.last(),
        Some(&ToolCall::new(
            "call_Ts5vQ1",
            "tool_search",
            r#"{"query":"archive an item","limit":3}"#
        ))
    );
}

#[test]
fn a_streamed_hosted_search_records_what_the_non_streamed_response_records() {
    for (stream, response, _) in all_streams() {
        let body = fixture(stream);
        let hosted = hosted_after(stream, &[body.as_bytes()]);
        let mut streamed = Activations::new();
        let mut parsed = Activations::new();
        assert_eq!(
            streamed.record_hosted(&hosted),
            parsed.record_hosted(&fixture_json(response)),
            "{stream}"
        );
        assert_eq!(streamed, parsed, "{stream}");
    }
    for (stream, found) in [
        ("openai_responses/hosted_search.sse", "convert"),
        ("anthropic/hosted_search.sse", "get_weather"),
    ] {
        let body = fixture(stream);
        let mut activations = Activations::new();
        assert_eq!(
            activations.record_hosted(&hosted_after(stream, &[body.as_bytes()])),
            [found],
            "{stream}"
        );
    }
}

/// Tell the weather in a city.
#[tool(tier = "read_only", deferred)]
pub async fn get_weather(
    /// The city.
    city: String,
) -> String {
    city
}

/// Convert an amount between currencies.
#[tool(tier = "read_only", deferred)]
pub async fn convert(
    /// The currency code to convert to, e.g. "EUR".
    to: Option<String>,
) -> String {
    format!("{to:?}")
}

toolset! {
    /// Deferred tools a hosted search finds in the recorded search streams.
    pub SearchedTools = [get_weather, convert];
}

#[test]
fn a_tool_a_streamed_hosted_search_loaded_is_permitted_once_the_host_records_it() {
    fn stream<P: Protocol>(name: &str) -> (Value, Vec<ToolCall>) {
        let mut stream = CallStream::<P>::new();
        stream.feed_sse(&fixture(name)).expect("a valid stream");
        let hosted = stream.hosted_search();
        (hosted, stream.finish().expect("a valid stream"))
    }
    let policy = SearchedTools::policy(Autonomy::ReadOnly);
    let search = ToolSearch::Hosted(Ranking::Bm25);
    for (name, format, (hosted, program)) in [
        (
            "anthropic/hosted_search.sse",
            Format::Anthropic,
            stream::<Anthropic>("anthropic/hosted_search.sse"),
        ),
        (
            "openai_responses/hosted_search.sse",
            Format::OpenAiResponses,
            stream::<OpenAiResponses>("openai_responses/hosted_search.sse"),
        ),
    ] {
        let mut activations = Activations::new();
        let request = |activations: &Activations| {
            Request::new(&policy)
                .format(format)
                .search(search)
                .activated(activations)
                .gate(program.clone())
                .map(|_| ())
        };
        assert!(request(&activations).is_err(), "{name}: not loaded yet");
        assert_eq!(activations.record_hosted(&hosted).len(), 1, "{name}");
        if let Err(rejected) = request(&activations) {
            panic!("{name}: {:?}", rejected.problems());
        }
    }
}

#[test]
fn a_hosted_search_is_shown_before_the_call_of_the_tool_it_found() {
    fn check<P: Protocol>(stream: &str, found: &str) {
        let mut assembler = CallStream::<P>::new();
        let mut seen = false;
        for event in sse_events(&fixture(stream)) {
            for call in assembler.feed_sse(&event).expect("a valid stream") {
                if call.name == found {
                    let mut activations = Activations::new();
                    activations.record_hosted(&assembler.hosted_search());
                    assert!(activations.contains(found), "{stream}");
                    seen = true;
                }
            }
        }
        assert!(seen, "{stream}: no call of {found}");
    }
    check::<OpenAiResponses>("openai_responses/hosted_search.sse", "convert");
    check::<Anthropic>("anthropic/hosted_search.sse", "get_weather");
}

#[test]
fn openai_chat_keeps_the_argument_text_byte_for_byte() {
    let (_, program) = assemble_whole::<OpenAiChat>(&fixture("openai_chat/parallel.sse"));
    let program = program.expect("a valid stream");
    assert_eq!(
        program[0].arguments,
        r#"{"query":"invoice from Société Générale 🧾","limit":5}"#
    );
}

#[test]
fn anthropic_and_gemini_arguments_are_serialized_as_the_non_streamed_parser_does() {
    for (stream, response, parse) in [
        (
            "anthropic/parallel.sse",
            "anthropic/response.json",
            ToolCall::from_anthropic as Parser,
        ),
        (
            "gemini/parallel.sse",
            "gemini/response.json",
            ToolCall::from_gemini,
        ),
    ] {
        let (_, program) = assemble_fixture(stream, &[fixture(stream).as_bytes()]);
        let program = program.expect("a valid stream");
        let expected = parse(&fixture_json(response)).expect("a valid response");
        let arguments: Vec<String> = program
            .iter()
            .map(|call| call.arguments.to_string())
            .collect();
        let expected: Vec<String> = expected
            .iter()
            .map(|call| call.arguments.to_string())
            .collect();
        assert_eq!(arguments, expected, "{stream}");
    }
}

#[test]
fn an_empty_arguments_call_assembles_to_an_empty_object_for_every_provider() {
    for (stream, _, _) in valid_streams() {
        let (_, program) = assemble_fixture(stream, &[fixture(stream).as_bytes()]);
        let program = program.unwrap_or_else(|error| panic!("{stream}: {error}"));
        let now = program
            .iter()
            .find(|call| call.name == "now")
            .expect("the `now` call");
        assert_eq!(now.arguments, "{}", "{stream}");
    }
}

#[test]
fn gemini_ids_follow_the_non_streamed_rule_given_or_synthesized() {
    let chunk = |parts: Value, finish: Option<&str>| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(finish) = finish {
            candidate["finishReason"] = json!(finish);
        }
        json!({"candidates": [candidate]})
    };
    let events = [
        chunk(json!([{"functionCall": {"name": "a"}}]), None),
        chunk(
            json!([{"functionCall": {"id": "given-1", "name": "b", "args": {"x": 1}}}]),
            None,
        ),
        chunk(
            json!([{"functionCall": {"name": "c", "args": {}}}]),
            Some("STOP"),
        ),
    ];
    let (handed_out, program) = assemble_events::<Gemini>(&events);
    let program = program.expect("a valid stream");
    let whole = ToolCall::from_gemini(&json!({"role": "model", "parts": [
        {"functionCall": {"name": "a"}},
        {"functionCall": {"id": "given-1", "name": "b", "args": {"x": 1}}},
        {"functionCall": {"name": "c", "args": {}}},
    ]}))
    .expect("a valid content");
    assert_eq!(program, whole);
    assert_eq!(handed_out, whole);
    let ids: Vec<&str> = program.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids[1], "given-1");
    assert!(
        ids[0].starts_with("call_") && ids[0].ends_with("_0"),
        "{ids:?}"
    );
    assert!(
        ids[2].starts_with("call_") && ids[2].ends_with("_2"),
        "{ids:?}"
    );
}

// ---- calls come out as soon as they are complete ----------------------------------------

/// The SSE events of a body, each with its blank line.
fn sse_events(body: &str) -> Vec<String> {
    body.replace("\r\n", "\n")
        .split_inclusive("\n\n")
        .map(str::to_owned)
        .collect()
}

/// Feeds `events` one SSE event at a time; the position of the event that completed each
/// call, with the call's name.
fn arrivals<P: Protocol>(events: &[String]) -> Vec<(usize, String)> {
    let mut stream = CallStream::<P>::new();
    let mut arrivals = Vec::new();
    for (position, event) in events.iter().enumerate() {
        for call in stream.feed_sse(event).expect("a valid stream") {
            arrivals.push((position, call.name));
        }
    }
    arrivals
}

#[test]
fn each_call_is_handed_out_while_the_stream_is_still_running() {
    for (stream, _, _) in valid_streams() {
        let events = sse_events(&fixture(stream));
        let arrivals = match stream.split('/').next() {
            Some("openai_chat") => arrivals::<OpenAiChat>(&events),
            Some("openai_responses") => arrivals::<OpenAiResponses>(&events),
            Some("anthropic") => arrivals::<Anthropic>(&events),
            _ => arrivals::<Gemini>(&events),
        };
        assert_eq!(arrivals.len(), 3, "{stream}: {arrivals:?}");
        let last_event = events.len() - 1;
        let (first_at, first) = &arrivals[0];
        assert!(
            *first_at < last_event - 1,
            "{stream}: the first call ({first}) came out only at event {first_at} of {last_event}"
        );
        assert!(
            arrivals.windows(2).any(|pair| pair[0].0 < pair[1].0),
            "{stream}: the calls came out together, not one by one: {arrivals:?}"
        );
    }
}

// ---- a call can be checked as soon as it is complete ---------------------------------------

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(
    /// Words to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

/// Read one item by its id.
#[tool(tier = "read_only")]
pub async fn read_item(
    /// The item's id.
    id: u32,
) -> String {
    id.to_string()
}

/// Archive one item by its id. It can be restored.
#[tool(tier = "reversible")]
pub async fn archive(
    /// The item's id.
    id: u32,
) -> Result<String, ToolError> {
    Ok(format!("archived {id}"))
}

toolset! {
    /// The tools the recorded streams call (`now` is not one of them).
    pub StreamTools = [search, read_item, archive];
}

#[test]
fn a_complete_call_is_verified_before_the_stream_ends_and_the_program_is_still_gated_whole() {
    // call 1 is fine; call 2 has a string id; call 3 needs approval.
    let body = anthropic_body(&[
        ("toolu_1", "search", &["{\"query\":", "\"report\"}"]),
        ("toolu_2", "read_item", &["{\"id\":\"3\"}"]),
        ("toolu_3", "archive", &["{\"id\":4}"]),
    ]);
    let mut stream = CallStream::<Anthropic>::new();
    let mut verdicts = Vec::new();
    for event in sse_events(&body) {
        for call in stream.feed_sse(&event).expect("a valid stream") {
            let verdict = match StreamTools::gate([call.clone()], Autonomy::ReadOnly) {
                Ok(plan) if plan.has_proposals() => "needs approval".to_owned(),
                Ok(_) => "runs".to_owned(),
                Err(rejected) => format!("rejected: {}", rejected.problems()[0].message),
            };
            verdicts.push((call.id, verdict, stream.completed().len()));
        }
    }
    assert_eq!(verdicts.len(), 3);
    assert_eq!(verdicts[0].1, "runs");
    assert!(
        verdicts[1]
            .1
            .starts_with("rejected: Invalid arguments for \"read_item\""),
        "{verdicts:?}"
    );
    assert_eq!(verdicts[2].1, "needs approval");
    let program = stream.finish().expect("a valid stream");
    let rejected =
        StreamTools::gate(program, Autonomy::ReadOnly).expect_err("one bad call rejects all");
    assert_eq!(rejected.calls().len(), 3);
    assert_eq!(rejected.problems()[0].call_id, "toolu_2");
}

fn anthropic_body(calls: &[(&str, &str, &[&str])]) -> String {
    let event = |kind: &str, body: Value| {
        let mut body = body;
        body["type"] = json!(kind);
        format!("event: {kind}\ndata: {body}\n\n")
    };
    let mut text = event(
        "message_start",
        json!({"message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}}),
    );
    for (index, (id, name, fragments)) in calls.iter().enumerate() {
        text += &event(
            "content_block_start",
            json!({"index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        );
        for fragment in *fragments {
            text += &event(
                "content_block_delta",
                json!({"index": index, "delta": {"type": "input_json_delta", "partial_json": fragment}}),
            );
        }
        text += &event("content_block_stop", json!({"index": index}));
    }
    text += &event(
        "message_delta",
        json!({"delta": {"stop_reason": "tool_use"}}),
    );
    text += &event("message_stop", json!({}));
    text
}

// ---- any split assembles the same --------------------------------------------------------

fn cut_points(body_len: usize, cuts: &[usize]) -> Vec<usize> {
    let mut points: Vec<usize> = cuts.iter().map(|cut| cut % (body_len + 1)).collect();
    points.push(0);
    points.push(body_len);
    points.sort_unstable();
    points.dedup();
    points
}

proptest! {
    #[test]
    fn any_split_of_a_valid_stream_into_byte_pieces_assembles_the_same_calls(
        stream in 0..10usize,
        cuts in prop::collection::vec(any::<usize>(), 0..60),
    ) {
        let (name, response, parse) = all_streams()[stream];
        let body = fixture(name);
        let whole = assemble_fixture(name, &[body.as_bytes()]);
        let bytes = body.as_bytes();
        let points = cut_points(bytes.len(), &cuts);
        let pieces: Vec<&[u8]> = points.windows(2).map(|pair| &bytes[pair[0]..pair[1]]).collect();
        let split = assemble_fixture(name, &pieces);
        prop_assert_eq!(&split.0, &whole.0, "handed out, {}", name);
        prop_assert_eq!(&split.1, &whole.1, "program, {}", name);
        // Whatever the split, the program is the non-streamed parse, and the hosted
        // search results shown before `finish` record what the response records.
        let response = fixture_json(response);
        let parsed_program = parse(&response).ok();
        prop_assert_eq!(split.1.as_ref().ok(), parsed_program.as_ref(), "parse, {}", name);
        let mut streamed = Activations::new();
        let mut parsed = Activations::new();
        prop_assert_eq!(
            streamed.record_hosted(&hosted_after(name, &pieces)),
            parsed.record_hosted(&response),
            "hosted, {}", name
        );
    }

    #[test]
    fn any_split_of_a_valid_stream_into_text_pieces_assembles_the_same_calls(
        stream in 0..10usize,
        cuts in prop::collection::vec(any::<usize>(), 0..60),
    ) {
        let (name, _, _) = all_streams()[stream];
        let body = fixture(name);
        let whole = assemble_fixture(name, &[body.as_bytes()]);
        let mut points = cut_points(body.len(), &cuts);
        points.retain(|point| body.is_char_boundary(*point));
        let pieces: Vec<&str> = points.windows(2).map(|pair| &body[pair[0]..pair[1]]).collect();
        let split = match name.split('/').next() {
            Some("openai_chat") => assemble_text::<OpenAiChat>(&pieces),
            Some("openai_responses") => assemble_text::<OpenAiResponses>(&pieces),
            Some("anthropic") => assemble_text::<Anthropic>(&pieces),
            _ => assemble_text::<Gemini>(&pieces),
        };
        prop_assert_eq!(&split.0, &whole.0, "handed out, {}", name);
        prop_assert_eq!(split.1, whole.1, "program, {}", name);
    }
}

proptest! {
    #[test]
    fn a_valid_stream_cut_anywhere_is_the_whole_program_or_an_error_never_a_shorter_one(
        stream in 0..10usize,
        cut in any::<usize>(),
    ) {
        let (name, _, _) = all_streams()[stream];
        let body = fixture(name);
        let whole = assemble_fixture(name, &[body.as_bytes()]).1.expect("a valid stream");
        let cut = cut % (body.len() + 1);
        let (handed_out, program) = assemble_fixture(name, &[&body.as_bytes()[..cut]]);
        match program {
            Ok(program) => prop_assert_eq!(program, whole, "cut at {} of {}", cut, name),
            Err(error) => {
                // Everything handed out is kept (and a call the last, unterminated event
                // completed at `finish` too).
                prop_assert!(error.completed().starts_with(&handed_out));
                // What was handed out before the cut is part of the real program.
                for call in error.completed() {
                    prop_assert!(whole.contains(call), "{:?} is not in {}", call, name);
                }
            }
        }
    }

    #[test]
    fn a_corrupted_stream_never_panics(
        stream in 0..10usize,
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let (name, _, _) = all_streams()[stream];
        let mut body = fixture(name).into_bytes();
        for (at, byte) in edits {
            let at = at % body.len();
            if byte % 3 == 0 {
                body.remove(at);
            } else {
                body[at] = byte;
            }
        }
        // Any outcome but a panic: an error, or calls from what still reads as a stream.
        let _ = assemble_fixture(name, &[&body]);
    }
}

// ---- truncated recordings ------------------------------------------------------------------

#[test]
fn a_truncated_recording_is_an_error_naming_the_unfinished_call_and_keeps_the_finished_ones() {
    let cases = [
        (
            "openai_chat/truncated.sse",
            "call_Rt8vB2",
            "read_item",
            "call_Qm3kX1",
        ),
        (
            "openai_responses/truncated.sse",
            "call_Rt8vB2",
            "read_item",
            "call_Qm3kX1",
        ),
        (
            "anthropic/truncated.sse",
            "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            "read_item",
            "toolu_01A09q90qw90lq917835lq9",
        ),
    ];
    for (stream, id, name, kept) in cases {
        let body = fixture(stream);
        let error = expect_error(assemble_fixture(stream, &[body.as_bytes()]));
        assert_eq!(
            error.kind(),
            StreamErrorKind::Truncated,
            "{stream}: {error}"
        );
        assert_eq!(error.calls().len(), 1, "{stream}: {error}");
        assert_eq!(error.calls()[0].id.as_deref(), Some(id), "{stream}");
        assert_eq!(error.calls()[0].name.as_deref(), Some(name), "{stream}");
        assert_eq!(
            error.calls()[0].arguments,
            "{\"id",
            "{stream}: the text so far is kept"
        );
        let message = error.to_string();
        assert!(
            message.contains(id) && message.contains(name),
            "{stream}: {message}"
        );
        let kept_ids: Vec<&str> = error
            .completed()
            .iter()
            .map(|call| call.id.as_str())
            .collect();
        assert_eq!(
            kept_ids,
            [kept],
            "{stream}: the call finished before the cut is kept"
        );
    }
}

#[test]
fn a_gemini_recording_cut_mid_chunk_is_an_error_and_keeps_the_calls_before() {
    let error = expect_error(assemble_whole::<Gemini>(&fixture("gemini/truncated.sse")));
    assert_eq!(error.kind(), StreamErrorKind::MissingStop, "{error}");
    assert!(
        error.problem().contains("in the middle of an event"),
        "{error}"
    );
    let names: Vec<&str> = error
        .completed()
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    assert_eq!(names, ["search", "read_item"]);
}

// ---- broken streams, each a guarantee -----------------------------------------------------

fn chat_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn chat_start(index: usize, id: &str, name: &str) -> Value {
    chat_chunk(
        json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
        None,
    )
}

fn chat_args(index: usize, arguments: &str) -> Value {
    chat_chunk(
        json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
        None,
    )
}

#[test]
fn openai_chat_a_fragment_for_an_index_never_started_is_an_error_naming_the_index() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "search"),
        chat_args(1, "{}"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::UnknownCall);
    assert_eq!(error.calls()[0].position, 1);
    assert!(error.to_string().contains("index 1"), "{error}");
}

#[test]
fn openai_chat_a_second_start_at_one_index_is_an_error_naming_both_calls() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "search"),
        chat_start(0, "call_b", "now"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::DuplicateStart);
    let message = error.to_string();
    assert!(
        message.contains("call_a") && message.contains("call_b"),
        "{message}"
    );
}

#[test]
fn openai_chat_a_stream_ending_mid_arguments_is_truncated_not_a_shorter_call() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "search"),
        chat_args(0, "{\"query\":\"inv"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Truncated);
    assert_eq!(error.calls()[0].id.as_deref(), Some("call_a"));
    assert_eq!(error.calls()[0].arguments, "{\"query\":\"inv");
}

#[test]
fn openai_chat_the_token_limit_in_the_middle_of_a_call_is_truncated() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "search"),
        chat_args(0, "{\"query\":\"inv"),
        chat_chunk(json!({}), Some("length")),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Truncated);
    assert!(error.problem().contains("max_completion_tokens"), "{error}");
}

#[test]
fn openai_chat_arguments_that_are_not_json_at_the_finish_are_an_error() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "search"),
        chat_args(0, "{query: inv}"),
        chat_chunk(json!({}), Some("tool_calls")),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedArguments);
    assert_eq!(error.calls()[0].name.as_deref(), Some("search"));
}

#[test]
fn openai_chat_a_stream_without_finish_reason_fails_on_its_last_call_and_keeps_the_ones_before() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "now"),
        chat_args(0, "{}"),
        chat_start(1, "call_b", "now"),
        chat_args(1, "{}"),
    ]));
    // call_a was complete (call_b had begun), call_b is whole but unconfirmed.
    assert_eq!(error.kind(), StreamErrorKind::Truncated, "{error}");
    assert_eq!(error.calls()[0].id.as_deref(), Some("call_b"));
    assert_eq!(error.completed().len(), 1);
    assert_eq!(error.completed()[0].id, "call_a");
}

#[test]
fn openai_chat_more_arguments_after_a_call_was_handed_out_are_an_error() {
    let error = expect_error(assemble_events::<OpenAiChat>(&[
        chat_start(0, "call_a", "now"),
        chat_args(0, "{}"),
        chat_start(1, "call_b", "now"),
        chat_args(0, "{}"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::AfterComplete);
    assert_eq!(error.calls()[0].id.as_deref(), Some("call_a"));
}

#[test]
fn an_api_error_event_in_the_middle_of_a_stream_is_an_error_with_the_apis_message() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]}}]}\n\n\
                data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n";
    let error = expect_error(assemble_whole::<OpenAiChat>(body));
    assert_eq!(error.kind(), StreamErrorKind::Api);
    assert!(
        error.problem().contains("server_error")
            && error.problem().contains("The server had an error"),
        "{error}"
    );
}

#[test]
fn after_an_error_the_stream_keeps_failing_and_keeps_the_finished_calls() {
    let mut stream = CallStream::<OpenAiChat>::new();
    stream
        .feed_event(&chat_start(0, "call_a", "now"))
        .expect("a start");
    stream.feed_event(&chat_args(0, "{}")).expect("arguments");
    let handed = stream
        .feed_event(&chat_start(1, "call_b", "now"))
        .expect("another start");
    assert_eq!(handed.len(), 1);
    let first = stream
        .feed_sse("data: {not json}\n\n")
        .expect_err("not JSON");
    assert_eq!(first.kind(), StreamErrorKind::MalformedEvent);
    let again = stream
        .feed_event(&chat_args(1, "{}"))
        .expect_err("still broken");
    assert_eq!(again, first);
    assert_eq!(stream.completed().len(), 1);
    let at_finish = stream.finish().expect_err("still broken");
    assert_eq!(at_finish.completed()[0].id, "call_a");
}

#[test]
fn content_after_done_is_an_error() {
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\ndata: {}\n\n",
        chat_start(0, "call_a", "now"),
        chat_chunk(json!({}), Some("tool_calls")),
        chat_start(1, "call_b", "now"),
    );
    let error = expect_error(assemble_whole::<OpenAiChat>(&body));
    assert_eq!(error.kind(), StreamErrorKind::AfterEnd);
}

fn responses_event(kind: &str, body: Value) -> Value {
    let mut body = body;
    body["type"] = json!(kind);
    body
}

fn responses_added(index: usize, call_id: &str) -> Value {
    responses_event(
        "response.output_item.added",
        json!({"output_index": index, "item": {
        "id": format!("fc_{index}"), "type": "function_call", "status": "in_progress",
        "arguments": "", "call_id": call_id, "name": "search"}}),
    )
}

fn responses_delta(index: usize, delta: &str) -> Value {
    responses_event(
        "response.function_call_arguments.delta",
        json!({"item_id": format!("fc_{index}"), "output_index": index, "delta": delta}),
    )
}

#[test]
fn responses_a_delta_for_an_item_never_added_is_an_error_naming_it() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_added(0, "call_a"),
        responses_delta(1, "{}"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::UnknownCall);
    assert!(
        error.to_string().contains("output_index 1") && error.problem().contains("fc_1"),
        "{error}"
    );
}

#[test]
fn responses_a_done_event_that_disagrees_with_its_deltas_is_an_error() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_added(0, "call_a"),
        responses_delta(0, "{\"query\":\"a\"}"),
        responses_event(
            "response.function_call_arguments.done",
            json!({"item_id": "fc_0", "output_index": 0, "arguments": "{\"query\":\"b\"}"}),
        ),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Inconsistent);
    assert_eq!(error.calls()[0].id.as_deref(), Some("call_a"));
}

#[test]
fn responses_the_two_done_events_complete_a_call_once_in_either_order() {
    let item_done = responses_event(
        "response.output_item.done",
        json!({"output_index": 0, "item": {
        "id": "fc_0", "type": "function_call", "status": "completed",
        "arguments": "{\"query\":\"a\"}", "call_id": "call_a", "name": "search"}}),
    );
    let arguments_done = responses_event(
        "response.function_call_arguments.done",
        json!({"item_id": "fc_0", "output_index": 0, "arguments": "{\"query\":\"a\"}"}),
    );
    let completed = responses_event(
        "response.completed",
        json!({"response": {"status": "completed"}}),
    );
    for order in [[&arguments_done, &item_done], [&item_done, &arguments_done]] {
        let events = [
            responses_added(0, "call_a"),
            responses_delta(0, "{\"query\":\"a\"}"),
            order[0].clone(),
            order[1].clone(),
            completed.clone(),
        ];
        let (handed_out, program) = assemble_events::<OpenAiResponses>(&events);
        let expected = vec![ToolCall::new("call_a", "search", r#"{"query":"a"}"#)];
        assert_eq!(handed_out, expected);
        assert_eq!(program.expect("a valid stream"), expected);
    }
}

#[test]
fn responses_an_item_finished_incomplete_is_truncated() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_added(0, "call_a"),
        responses_delta(0, "{\"que"),
        responses_event(
            "response.output_item.done",
            json!({"output_index": 0, "item": {
            "id": "fc_0", "type": "function_call", "status": "incomplete",
            "arguments": "{\"que", "call_id": "call_a", "name": "search"}}),
        ),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Truncated);
    assert_eq!(error.calls()[0].arguments, "{\"que");
}

#[test]
fn responses_an_incomplete_response_in_the_middle_of_a_call_is_truncated() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_added(0, "call_a"),
        responses_delta(0, "{\"que"),
        responses_event(
            "response.incomplete",
            json!({"response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
        ),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Truncated);
    assert!(error.problem().contains("max_output_tokens"), "{error}");
}

fn responses_search_item(call_id: &str, status: &str, arguments: Value) -> Value {
    json!({"id": "tsc_1", "type": "tool_search_call", "call_id": call_id,
           "execution": "client", "arguments": arguments, "status": status})
}

#[test]
fn responses_a_client_tool_search_cut_before_its_item_is_done_is_truncated_naming_it() {
    let added = responses_event(
        "response.output_item.added",
        json!({"output_index": 0, "item": responses_search_item("call_s", "in_progress", json!({}))}),
    );
    for end in [
        Some(responses_event(
            "response.incomplete",
            json!({"response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
        )),
        None,
    ] {
        let events: Vec<Value> = [added.clone()].into_iter().chain(end).collect();
        let error = expect_error(assemble_events::<OpenAiResponses>(&events));
        assert_eq!(error.kind(), StreamErrorKind::Truncated, "{error}");
        assert_eq!(error.calls()[0].id.as_deref(), Some("call_s"), "{error}");
        assert_eq!(
            error.calls()[0].name.as_deref(),
            Some("tool_search"),
            "{error}"
        );
    }
}

#[test]
fn responses_a_tool_search_item_finished_as_another_call_is_an_error() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_event(
            "response.output_item.added",
            json!({"output_index": 0, "item": responses_search_item("call_s", "in_progress", json!({}))}),
        ),
        responses_event(
            "response.output_item.done",
            json!({"output_index": 0, "item": responses_search_item("call_t", "completed", json!({"query": "x"}))}),
        ),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Inconsistent, "{error}");
    assert!(error.problem().contains("call_t"), "{error}");
}

#[test]
fn responses_a_tool_search_item_without_arguments_is_the_non_streamed_parsers_error() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_event(
            "response.output_item.added",
            json!({"output_index": 0, "item": responses_search_item("call_s", "in_progress", json!({}))}),
        ),
        responses_event(
            "response.output_item.done",
            json!({"output_index": 0, "item": {"id": "tsc_1", "type": "tool_search_call",
                   "call_id": "call_s", "execution": "client", "status": "completed"}}),
        ),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedEvent, "{error}");
    assert!(error.problem().contains("arguments is missing"), "{error}");
}

#[test]
fn responses_a_failed_response_is_an_api_error() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[responses_event(
        "response.failed",
        json!({"response": {"status": "failed", "error": {"code": "server_error", "message": "Something went wrong."}}}),
    )]));
    assert_eq!(error.kind(), StreamErrorKind::Api);
    assert!(error.problem().contains("Something went wrong."), "{error}");
}

#[test]
fn responses_a_second_item_at_one_output_index_is_an_error() {
    let error = expect_error(assemble_events::<OpenAiResponses>(&[
        responses_added(0, "call_a"),
        responses_added(0, "call_b"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::DuplicateStart);
    assert_eq!(error.calls()[0].id.as_deref(), Some("call_a"));
}

fn anthropic_event(kind: &str, body: Value) -> Value {
    let mut body = body;
    body["type"] = json!(kind);
    body
}

fn anthropic_start(index: usize, id: &str) -> Value {
    anthropic_event(
        "content_block_start",
        json!({"index": index, "content_block": {"type": "tool_use", "id": id, "name": "search", "input": {}}}),
    )
}

fn anthropic_delta(index: usize, partial_json: &str) -> Value {
    anthropic_event(
        "content_block_delta",
        json!({"index": index, "delta": {"type": "input_json_delta", "partial_json": partial_json}}),
    )
}

fn anthropic_stop(index: usize) -> Value {
    anthropic_event("content_block_stop", json!({"index": index}))
}

#[test]
fn anthropic_input_that_is_json_but_not_an_object_is_an_error_naming_the_block() {
    let error = expect_error(assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_delta(0, "[1, 2]"),
        anthropic_stop(0),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedArguments);
    assert!(
        error
            .to_string()
            .contains("toolu_a (search, content block 0)"),
        "{error}"
    );
    assert!(
        error.problem().contains("an array, not a JSON object"),
        "{error}"
    );
}

#[test]
fn anthropic_fragments_that_do_not_form_json_are_an_error() {
    let error = expect_error(assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_delta(0, "{\"query\": \"inv"),
        anthropic_stop(0),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedArguments);
    assert_eq!(error.calls()[0].arguments, "{\"query\": \"inv");
}

#[test]
fn anthropic_a_delta_for_a_block_never_started_is_an_error() {
    let error = expect_error(assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_delta(1, "{}"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::UnknownCall);
    assert_eq!(error.calls()[0].position, 1);
}

#[test]
fn anthropic_a_second_start_at_one_index_is_an_error() {
    let error = expect_error(assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_start(0, "toolu_b"),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::DuplicateStart);
    assert_eq!(error.calls()[0].id.as_deref(), Some("toolu_a"));
}

#[test]
fn anthropic_a_stream_without_message_stop_is_missing_its_stop() {
    let error = expect_error(assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_delta(0, "{}"),
        anthropic_stop(0),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MissingStop);
    assert_eq!(error.completed().len(), 1, "the finished call is kept");
}

#[test]
fn anthropic_a_tool_use_without_fragments_has_the_starts_input() {
    let (handed_out, program) = assemble_events::<Anthropic>(&[
        anthropic_start(0, "toolu_a"),
        anthropic_stop(0),
        anthropic_event("message_stop", json!({})),
    ]);
    assert_eq!(
        program.expect("a valid stream"),
        vec![ToolCall::new("toolu_a", "search", "{}")]
    );
    assert_eq!(handed_out.len(), 1);
}

#[test]
fn anthropic_an_overloaded_error_event_is_an_api_error() {
    let body = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let error = expect_error(assemble_whole::<Anthropic>(body));
    assert_eq!(error.kind(), StreamErrorKind::Api);
    assert!(
        error.problem().contains("overloaded_error: Overloaded")
            || error.problem().contains("(overloaded_error): Overloaded"),
        "{error}"
    );
}

#[test]
fn gemini_a_stream_without_finish_reason_is_missing_its_stop() {
    let error = expect_error(assemble_events::<Gemini>(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "now"}}]}}]}),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MissingStop);
    assert_eq!(error.completed().len(), 1);
}

#[test]
fn gemini_arguments_streamed_in_pieces_are_refused_not_read_short() {
    let error = expect_error(assemble_events::<Gemini>(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "search", "partialArgs": [{"jsonPath": "$.query", "stringValue": "inv", "willContinue": true}], "willContinue": true}}
        ]}}]}),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedEvent);
    assert!(error.problem().contains("partialArgs"), "{error}");
}

proptest! {
    /// Random Gemini function calls, with and without ids, some taking an id the stream
    /// synthesized for an earlier call: the stream's program is the non-streamed parse,
    /// or, where a later id would re-number an earlier call already handed out, an
    /// `Inconsistent` error, never a program that differs.
    #[test]
    fn gemini_ids_given_or_synthesized_are_the_non_streamed_parsers(
        calls in prop::collection::vec((0..3usize, any::<bool>(), 0..4usize, any::<usize>()), 1..8),
    ) {
        let mut parts: Vec<Value> = Vec::new();
        for (name, with_args, id_kind, earlier) in calls {
            let name = ["a", "b", "c"][name];
            let mut call = json!({ "name": name });
            if with_args {
                call["args"] = json!({"n": parts.len()});
            }
            match id_kind {
                0 | 1 => {}
                2 => call["id"] = json!(format!("given-{}", earlier % 3)),
                _ if !parts.is_empty() => {
                    // The id the parts so far give an earlier call (perhaps synthesized).
                    let so_far = ToolCall::from_gemini(&json!({"role": "model", "parts": parts}))
                        .expect("valid parts");
                    call["id"] = json!(so_far[earlier % so_far.len()].id);
                }
                _ => {}
            }
            parts.push(json!({"functionCall": call}));
        }
        let events: Vec<Value> = parts
            .iter()
            .enumerate()
            .map(|(index, part)| {
                let mut candidate = json!({"content": {"role": "model", "parts": [part]}, "index": 0});
                if index + 1 == parts.len() {
                    candidate["finishReason"] = json!("STOP");
                }
                json!({"candidates": [candidate]})
            })
            .collect();
        let parsed = ToolCall::from_gemini(&json!({"role": "model", "parts": parts}))
            .expect("valid parts");
        let (handed_out, program) = assemble_events::<Gemini>(&events);
        match program {
            Ok(program) => {
                prop_assert_eq!(&program, &parsed);
                prop_assert_eq!(handed_out, parsed);
            }
            Err(error) => {
                prop_assert_eq!(error.kind(), StreamErrorKind::Inconsistent, "{}", error);
                let before = error.completed();
                prop_assert_ne!(before, &parsed[..before.len()], "{}", error);
            }
        }
    }
}

#[test]
fn gemini_a_later_call_taking_an_id_already_given_away_is_an_error() {
    let given_away = ToolCall::from_gemini(
        &json!({"role": "model", "parts": [{"functionCall": {"name": "a"}}]}),
    )
    .expect("valid")[0]
        .id
        .clone();
    let error = expect_error(assemble_events::<Gemini>(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "a"}}]}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": given_away, "name": "b"}}]}}]}),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::Inconsistent);
    assert!(error.problem().contains(&given_away), "{error}");
}

#[test]
fn gemini_args_that_are_not_an_object_are_an_error_naming_the_part() {
    let error = expect_error(assemble_events::<Gemini>(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "x"}, {"functionCall": {"name": "search", "args": "query=inv"}}
        ]}}]}),
    ]));
    assert_eq!(error.kind(), StreamErrorKind::MalformedEvent);
    assert!(
        error
            .problem()
            .contains("chunk 1, candidate part 1: functionCall.args"),
        "{error}"
    );
}
