//! `McpServer`'s builder only tightens: in every order, autonomy ends at the lowest level
//! set, and every tool a policy hid, denied or deferred stays so.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use std::time::Duration;
use toolset::consumer::Format;
use toolset::mcp::McpServer;
use toolset::request::Request;
use toolset::set::ToolName;
use toolset::{Autonomy, Policy, tool, toolset};

/// Count of shipments made.
#[derive(Default)]
pub struct Dock {
    shipped: u32,
}

/// Look at the dock.
#[tool(tier = "read_only")]
pub async fn look(dock: &Dock) -> String {
    dock.shipped.to_string()
}

/// Tidy the dock.
#[tool(tier = "reversible")]
pub async fn tidy(_dock: &mut Dock) -> &'static str {
    "tidied"
}

/// Ship a parcel to a customer.
#[tool(tier = "external_reversible")]
pub async fn ship(dock: &mut Dock) -> &'static str {
    dock.shipped += 1;
    "shipped"
}

/// Sweep the floor.
#[tool(tier = "reversible")]
pub async fn sweep(_dock: &mut Dock) -> &'static str {
    "swept"
}

toolset! {
    /// The dock's tools.
    pub DockTools<Dock> = [look, tidy, ship, sweep];
}

/// One builder call.
#[derive(Clone, Copy, Debug)]
enum Step {
    Autonomy(Autonomy),
    /// A policy at this level hiding `sweep`.
    Hiding(Autonomy),
    /// A policy at this level denying `tidy` and deferring `look`.
    DenyingDeferring(Autonomy),
}

impl Step {
    fn apply(self, server: McpServer<DockTools>) -> McpServer<DockTools> {
        match self {
            Step::Autonomy(level) => server.with_autonomy(level),
            Step::Hiding(level) => {
                server.with_policy(Policy::new(level).hide(DockToolsName::Sweep))
            }
            Step::DenyingDeferring(level) => server.with_policy(
                Policy::new(level)
                    .deny(DockToolsName::Tidy)
                    .defer(DockToolsName::Look),
            ),
        }
    }

    fn level(self) -> Autonomy {
        match self {
            Step::Autonomy(level) | Step::Hiding(level) | Step::DenyingDeferring(level) => level,
        }
    }
}

/// Every ordering of every non-empty subset of `steps`.
fn orderings(steps: &[Step]) -> Vec<Vec<Step>> {
    let mut all = Vec::new();
    for (index, &step) in steps.iter().enumerate() {
        let mut rest = steps.to_vec();
        rest.remove(index);
        all.push(vec![step]);
        for tail in orderings(&rest) {
            let mut ordering = vec![step];
            ordering.extend(tail);
            all.push(ordering);
        }
    }
    all
}

#[test]
fn no_order_of_builder_calls_raises_autonomy_or_drops_a_restriction() {
    let steps = [
        Step::Autonomy(Autonomy::ExternalReversible),
        Step::Autonomy(Autonomy::Reversible),
        Step::Hiding(Autonomy::ExternalReversible),
        Step::DenyingDeferring(Autonomy::ReadOnly),
        Step::Hiding(Autonomy::Off),
    ];
    let orderings = orderings(&steps);
    assert_eq!(orderings.len(), 5 + 20 + 60 + 120 + 120);
    for ordering in orderings {
        let server = ordering.iter().fold(
            McpServer::<DockTools>::new(Dock::default()),
            |server, step| step.apply(server),
        );
        let lowest = ordering.iter().map(|step| step.level()).min();
        assert_eq!(Some(server.autonomy()), lowest, "{ordering:?}");
        let policy = server.policy();
        let hid = ordering.iter().any(|step| matches!(step, Step::Hiding(_)));
        let denied = ordering
            .iter()
            .any(|step| matches!(step, Step::DenyingDeferring(_)));
        assert_eq!(policy.is_hidden(DockToolsName::Sweep), hid, "{ordering:?}");
        assert_eq!(
            policy.is_denied(DockToolsName::Tidy),
            denied,
            "{ordering:?}"
        );
        assert_eq!(
            policy.is_deferred(DockToolsName::Look),
            denied,
            "{ordering:?}"
        );
        // Nothing else got restricted along the way.
        assert!(!policy.is_denied(DockToolsName::Ship) && !policy.is_hidden(DockToolsName::Ship));
        let listed: Vec<String> = server
            .tools()
            .expect("the tool list renders")
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        // What a new session is listed: what the policy offers, then the search tool
        // when something is deferred; nothing hidden, denied or deferred.
        let mut expected: Vec<&str> = DockToolsName::ALL
            .iter()
            .filter(|tool| {
                !policy.is_hidden(**tool)
                    && !policy.is_denied(**tool)
                    && !policy.is_deferred(**tool)
            })
            .map(|tool| tool.as_str())
            .collect();
        // The local search runs in the gate: not offered at `Off`, where nothing runs
        // without the user.
        if denied && server.autonomy() != Autonomy::Off {
            expected.push("tool_search");
        }
        assert_eq!(listed, expected, "{ordering:?}");
        assert_eq!(
            listed,
            Request::new(policy).format(Format::Mcp).offered(),
            "{ordering:?}: the list is the gate's request's"
        );
    }
}

#[test]
fn the_first_level_set_replaces_the_default() {
    let server = McpServer::<DockTools>::new(Dock::default());
    assert_eq!(server.autonomy(), Autonomy::ReadOnly);
    assert_eq!(
        server.with_autonomy(Autonomy::Reversible).autonomy(),
        Autonomy::Reversible
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_then_more_autonomy_does_not_run_an_external_tool_unattended() {
    let server = McpServer::<DockTools>::new(Dock::default())
        .with_policy(Policy::new(Autonomy::Reversible))
        .with_autonomy(Autonomy::ExternalReversible);
    let state = server.state().clone();
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    let client = ().serve(client_io).await.expect("the client connects");
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool(CallToolRequestParams::new("ship")),
    )
    .await
    .expect("the call answers in time")
    .expect("the call succeeds at the protocol level");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        state.read().await.shipped,
        0,
        "the external tool ran unattended"
    );
    let _ = client.cancel().await;
}
