//! Cached tool lists: the same bytes (the same allocation, even) on every call, in a
//! stable order, with deferred tools left for tool search: the default list is a fresh
//! conversation's request list, search tool included.

mod render_corpus;

use render_corpus::Corpus;
use serde_json::Value;
use toolset::consumer::{Format, Order, render_specs, tool_list};
use toolset::prelude::*;
use toolset::request::Request;
use toolset::{Autonomy, Policy, ToolSpec, tool, toolset};
use toolset_tests::InboxTools;

/// The tool names a rendered list holds, in order.
fn names_in(list: &str, format: Format) -> Vec<String> {
    if format == Format::Prompt {
        return list
            .lines()
            .filter_map(|line| line.strip_prefix("## "))
            .map(|heading| heading.split(' ').next().unwrap_or(heading).to_owned())
            .collect();
    }
    let tools: Vec<Value> = serde_json::from_str(list).expect("a JSON array");
    tools
        .iter()
        .map(|tool| {
            let name = match format {
                Format::OpenAiChat => &tool["function"]["name"],
                // OpenAI's own search tool has a type, not a name.
                Format::OpenAiResponses if tool["type"] == "tool_search" => {
                    return "tool_search".to_owned();
                }
                _ => &tool["name"],
            };
            name.as_str().expect("a name").to_owned()
        })
        .collect()
}

fn default_specs() -> Vec<&'static ToolSpec> {
    Corpus::specs()
        .iter()
        .filter(|spec| !spec.is_deferred())
        .collect()
}

/// Whether the format lists deferred tools itself (`defer_loading: true`) for its native
/// tool search.
fn lists_deferred(format: Format) -> bool {
    matches!(format, Format::Anthropic | Format::OpenAiResponses)
}

/// The names of the default list: the tools not deferred (and the deferred ones where the
/// format's native search loads them), in declared order, then the search tool.
fn default_names(format: Format) -> Vec<String> {
    Corpus::specs()
        .iter()
        .filter(|spec| !spec.is_deferred() || lists_deferred(format))
        .map(|spec| spec.name().to_owned())
        .chain(["tool_search".to_owned()])
        .collect()
}

#[test]
fn a_list_is_rendered_once_and_handed_out_as_the_same_bytes() {
    for format in Format::ALL {
        for order in Order::ALL {
            let first = tool_list::<Corpus>(format, order);
            let second = tool_list::<Corpus>(format, order);
            assert!(
                std::ptr::eq(first, second),
                "{format} {order:?}: same allocation"
            );
            assert_eq!(first, second);
        }
        // The cache holds what a fresh conversation's request composes, and its tools
        // render as the uncached renderer renders them.
        let declared = tool_list::<Corpus>(format, Order::Declared);
        // At any level but `Off`, which offers no local search.
        let policy = Policy::<Corpus>::new(Autonomy::ExternalReversible);
        assert_eq!(
            declared,
            Request::new(&policy).format(format).tool_list(),
            "{format}"
        );
        if !lists_deferred(format) {
            let tools = render_specs(&default_specs(), format);
            let open = tools.strip_suffix(']').unwrap_or(&tools);
            assert!(declared.starts_with(open), "{format}");
        }
    }
}

#[test]
fn declared_order_is_the_specs_order_without_deferred_tools_then_the_search() {
    for format in Format::ALL {
        let declared = default_names(format);
        assert_eq!(
            declared.iter().any(|name| name == "find"),
            lists_deferred(format),
            "find is deferred: listed only for a native search"
        );
        let list = tool_list::<Corpus>(format, Order::Declared);
        assert_eq!(names_in(list, format), declared, "{format}");
    }
}

#[test]
fn by_name_order_is_sorted() {
    for format in Format::ALL {
        let mut sorted = default_names(format);
        sorted.sort();
        let names = names_in(tool_list::<Corpus>(format, Order::ByName), format);
        assert!(
            names.windows(2).all(|pair| pair[0] < pair[1]),
            "{format}: {names:?}"
        );
        assert_eq!(names, sorted, "{format}");
    }
}

#[test]
fn each_set_has_its_own_cache() {
    for format in Format::ALL {
        let corpus = tool_list::<Corpus>(format, Order::Declared);
        let inbox = tool_list::<InboxTools>(format, Order::Declared);
        assert_ne!(corpus, inbox, "{format}");
        assert_eq!(
            names_in(inbox, format),
            ["set_due_date", "search", "create-item", "now", "send_reply"],
            "{format}"
        );
    }
}

/// Tell the time.
#[tool(tier = "read_only")]
async fn clock() -> String {
    "noon".into()
}

toolset! {
    /// A set only the concurrency test renders, so its cache starts empty there.
    Clock = [clock];
}

#[test]
fn racing_first_calls_get_one_rendering() {
    let pointers: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    tool_list::<Clock>(Format::OpenAiResponses, Order::ByName).as_ptr() as usize
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("no panic"))
            .collect()
    });
    assert!(pointers.windows(2).all(|pair| pair[0] == pair[1]));
}

#[test]
fn the_bytes_are_pinned() {
    // Compact JSON with keys in a fixed order (each object's keys in the order the renderer
    // writes them: name first, the schema's `type` first, arguments in declared order):
    // what a prompt cache prefix-matches on. A change here changes every cached prefix, so
    // it should be deliberate.
    assert_eq!(
        tool_list::<Clock>(Format::Anthropic, Order::Declared),
        r#"[{"name":"clock","description":"Tell the time.","input_schema":{"type":"object","properties":{},"additionalProperties":false},"strict":true}]"#
    );
    assert_eq!(
        tool_list::<Clock>(Format::OpenAiResponses, Order::Declared),
        r#"[{"type":"function","name":"clock","description":"Tell the time.","parameters":{"type":"object","properties":{},"additionalProperties":false,"required":[]},"strict":true}]"#
    );
    assert_eq!(
        tool_list::<Clock>(Format::Gemini, Order::Declared),
        r#"[{"name":"clock","description":"Tell the time."}]"#
    );
    assert_eq!(
        tool_list::<Clock>(Format::Prompt, Order::Declared),
        "## clock\nTier: read_only.\nTell the time.\nArguments: none."
    );
}
