//! An argument mirrored into a request header (MCP 2026-07-28, SEP-2243), over raw HTTP:
//! `#[mcp_header("Region")]`, or `x-mcp-header` written into a runtime tool's schema, is
//! listed on the argument's property; a `tools/call` whose `Mcp-Param-Region` header is
//! missing, different or badly encoded is refused with `400` and `-32020` (HeaderMismatch)
//! before the handler runs; a matching one (plain or `=?base64?...?=`) runs. No other
//! consumer's list carries the annotation.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolset::consumer::Format;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::prelude::*;
use toolset::{DynamicTool, Tier, ToolContext, tool, toolset};
use toolset_tests::loopback::{Loopback, serve_http};
use toolset_tests::stateless::post;

/// How many times a handler ran.
#[derive(Default)]
pub struct Runs(Arc<AtomicUsize>);

/// Say the weather of a region.
#[tool(tier = "read_only")]
pub async fn weather(
    runs: &Runs,
    /// The region, mirrored into `Mcp-Param-Region`.
    #[mcp_header("Region")]
    region: String,
    /// How many days ahead (not mirrored).
    days: u32,
) -> String {
    runs.0.fetch_add(1, Ordering::SeqCst);
    format!("{region} in {days} days: sunny")
}

/// Say the archived weather of a region (deferred: listed once a search activates it).
#[tool(tier = "read_only", deferred)]
pub async fn archived_weather(runs: &Runs, #[mcp_header("Region")] region: String) -> String {
    runs.0.fetch_add(1, Ordering::SeqCst);
    format!("{region}: it rained")
}

toolset! { pub Forecast<Runs> = [weather, archived_weather]; }

/// A runtime tool whose registered schema mirrors `tenant` into `Mcp-Param-Tenant`.
fn tenant_tool(runs: &Arc<AtomicUsize>) -> DynamicTool {
    let runs = Arc::clone(runs);
    DynamicTool::new("tenant_usage", Tier::ReadOnly, "Say a tenant's usage.")
        .input_schema(json!({
            "type": "object",
            "properties": {"tenant": {"type": "string", "x-mcp-header": "Tenant"}},
            "required": ["tenant"],
            "additionalProperties": false,
        }))
        .handler(move |_arguments: Value, _ctx: &ToolContext| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                "usage: 3"
            }
        })
}

/// A served fixture: where it listens, the `#[tool]`'s and the runtime tool's run counts.
struct Served {
    loopback: Loopback,
    weather_runs: Arc<AtomicUsize>,
    tenant_runs: Arc<AtomicUsize>,
}

async fn serve() -> Served {
    let runs = Runs::default();
    let weather_runs = Arc::clone(&runs.0);
    let tenant_runs = Arc::new(AtomicUsize::new(0));
    let toolbox = Forecast::toolbox()
        .with(tenant_tool(&tenant_runs))
        .expect("the runtime tool registers");
    let server = McpServer::<Forecast>::new(runs).with_toolbox(toolbox);
    Served {
        loopback: serve_http(HttpConfig::new(), |listener, config| {
            server.serve_http(listener, config)
        })
        .await,
        weather_runs,
        tenant_runs,
    }
}

/// A `tools/call` of `tool` with `arguments` and `extra` headers.
async fn call(
    addr: std::net::SocketAddr,
    tool: &str,
    arguments: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    post(
        addr,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        json!({}),
        extra,
    )
    .await
}

/// A call of the runtime tool for the tenant `acme`, its `Mcp-Param-Tenant` header `header`.
async fn tenant_call(addr: std::net::SocketAddr, header: &str) -> (u16, Value) {
    let arguments = json!({"tenant": "acme"});
    call(
        addr,
        "tenant_usage",
        arguments,
        &[("mcp-param-tenant", header)],
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_annotation_is_listed_by_mcp_on_the_mirrored_property_only() {
    let served = serve().await;
    let (status, listed) = post(
        served.loopback.addr,
        "tools/list",
        json!({}),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    let tools = listed["result"]["tools"].as_array().expect("a tool list");
    let schema = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .map(|tool| tool["inputSchema"].clone())
            .unwrap_or_else(|| panic!("{name} is listed: {listed}"))
    };
    let weather = schema("weather");
    assert_eq!(weather["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(weather["properties"]["region"]["type"], "string");
    assert!(
        weather["properties"]["days"].get("x-mcp-header").is_none(),
        "an argument without #[mcp_header] is not mirrored: {weather}"
    );
    // A runtime tool's schema is listed whole, its annotation with it.
    assert_eq!(
        schema("tenant_usage")["properties"]["tenant"]["x-mcp-header"],
        "Tenant"
    );
}

#[test]
fn no_other_consumer_sees_the_annotation() {
    let toolbox = Forecast::toolbox()
        .with(tenant_tool(&Arc::new(AtomicUsize::new(0))))
        .expect("the runtime tool registers");
    for format in Format::ALL {
        let list = toolbox.tool_list(format);
        assert_eq!(
            list.contains("x-mcp-header"),
            format == Format::Mcp,
            "{}: {list}",
            format.as_str()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_matching_header_runs_the_call_plain_or_base64() {
    let served = serve().await;
    let arguments = json!({"region": "north", "days": 2});
    let (status, answer) = call(
        served.loopback.addr,
        "weather",
        arguments.clone(),
        &[("mcp-param-region", "north")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    // `bm9ydGg=` is "north" in Base64: decoded before it is compared.
    let (status, answer) = call(
        served.loopback.addr,
        "weather",
        arguments,
        &[("Mcp-Param-Region", "=?base64?bm9ydGg=?=")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(served.weather_runs.load(Ordering::SeqCst), 2);

    let (status, answer) = tenant_call(served.loopback.addr, "acme").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(served.tenant_runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_different_or_garbled_header_is_refused_and_the_handler_never_runs() {
    let served = serve().await;
    let arguments = json!({"region": "north", "days": 2});
    let refusals: [&[(&str, &str)]; 4] = [
        &[],
        &[("mcp-param-region", "south")],
        &[("mcp-param-region", "North")],
        // Not Base64 inside the wrapper (bad padding).
        &[("mcp-param-region", "=?base64?bm9ydGg?=")],
    ];
    for headers in refusals {
        let (status, answer) =
            call(served.loopback.addr, "weather", arguments.clone(), headers).await;
        assert_eq!(status, 400, "{headers:?}: {answer}");
        assert_eq!(answer["error"]["code"], -32020, "{headers:?}: {answer}");
    }
    // The runtime tool's annotation is held to the same rule.
    let (status, answer) = tenant_call(served.loopback.addr, "globex").await;
    assert_eq!((status, &answer["error"]["code"]), (400, &json!(-32020)));
    assert_eq!(
        served.weather_runs.load(Ordering::SeqCst),
        0,
        "no refused call ran"
    );
    assert_eq!(served.tenant_runs.load(Ordering::SeqCst), 0);
}

/// rmcp checks the headers against the tool a fresh handler finds, which knows no
/// session's activations: a deferred tool is found as it would be listed once activated,
/// so its headers are checked too, never skipped.
#[tokio::test(flavor = "multi_thread")]
async fn a_deferred_tools_header_is_checked_too() {
    let served = serve().await;
    let (status, answer) = call(
        served.loopback.addr,
        "archived_weather",
        json!({"region": "north"}),
        &[],
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32020)),
        "{answer}"
    );
    assert_eq!(served.weather_runs.load(Ordering::SeqCst), 0);
}

/// A runtime tool whose schema holds `properties` (each `x-mcp-header` as written):
/// registration's verdict.
fn registered(properties: Value) -> Result<(), String> {
    let tool = DynamicTool::new("annotated", Tier::ReadOnly, "Say something.")
        .input_schema(json!({"type": "object", "properties": properties}))
        .handler(|_arguments: Value, _ctx: &ToolContext| async { "said" });
    Forecast::toolbox()
        .with(tool)
        .map(|_| ())
        .map_err(|error| error.to_string())
}

#[test]
fn a_runtime_tools_header_annotations_keep_the_rules_of_mcp_header() {
    // What `#[mcp_header]` allows: a primitive top-level argument, an optional one.
    assert_eq!(
        registered(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "days": {"type": ["integer", "null"], "x-mcp-header": "Days"},
        })),
        Ok(())
    );
    for (properties, says) in [
        (
            json!({"region": {"type": "string", "x-mcp-header": "My Region"}}),
            "is not an HTTP header name",
        ),
        (
            json!({"region": {"type": "string", "x-mcp-header": 7}}),
            "is not an HTTP header name",
        ),
        (
            json!({"place": {"type": "object", "x-mcp-header": "Place"}}),
            "only a string, an integer, a number or a boolean",
        ),
        (
            json!({
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "region"},
            }),
            "already mirrors another argument",
        ),
        (
            json!({"place": {
                "type": "object",
                "properties": {"city": {"type": "string", "x-mcp-header": "City"}},
            }}),
            "only on a top-level property",
        ),
    ] {
        let refused = registered(properties.clone()).expect_err("refused");
        assert!(refused.contains(says), "{properties}: {refused}");
    }
}
