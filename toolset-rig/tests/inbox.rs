//! A rig agent on the inbox example's tools, offline on rig's own scripted model
//! (`MockCompletionModel`): what the model is told, what ran, what waited for the human.

use inbox_agent::{Inbox, InboxTools};
use rig_agent::{Agent, AgentBuilder};
use rig_core::completion::{AssistantContent, CompletionRequest};
use rig_core::message::{
    Message, ToolCall, ToolFunction, ToolName, ToolResultContent, UserContent,
};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::{Value, json};
use toolset::driver::Resolved;
use toolset::prelude::*;
use toolset::{Autonomy, Driver, MemoryStore, Tier, ToolContext};
use toolset_rig::{RigTools, WithToolset};

type Error = Box<dyn std::error::Error>;

/// The model's call `id` to `name` with `arguments`, as a turn's content.
fn call(id: &str, name: &str, arguments: Value) -> Result<AssistantContent, Error> {
    let function = ToolFunction::new(ToolName::new(name)?, arguments);
    Ok(AssistantContent::ToolCall(ToolCall::from_wire(
        id, function,
    )))
}

/// What the model read as the result of `call_id` in `request`, and whether rig marked it
/// an error (failed, refused or skipped).
fn result_of(request: &CompletionRequest, call_id: &str) -> Option<(String, bool)> {
    request
        .chat_history
        .iter()
        .find_map(|message| match message {
            Message::User { content } => content.iter().find_map(|part| match part {
                UserContent::ToolResult(result) if result.call.to_string() == call_id => {
                    let text = result
                        .content
                        .iter()
                        .map(|part| match part {
                            ToolResultContent::Text(text) => text.text.clone(),
                            ToolResultContent::Json { value } => value.to_string(),
                            ToolResultContent::Image(_) => "[image]".to_owned(),
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    Some((text, result.is_error))
                }
                _ => None,
            }),
            _ => None,
        })
}

/// Every text the model read in `request`'s user messages, joined.
fn user_text(request: &CompletionRequest) -> String {
    request
        .chat_history
        .iter()
        .filter_map(|message| match message {
            Message::User { content } => Some(content),
            _ => None,
        })
        .flatten()
        .filter_map(|part| match part {
            UserContent::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn tools() -> Result<RigTools<InboxTools, MemoryStore>, Error> {
    // Reads and reversible writes run alone; anything more waits for the user.
    let driver = Driver::new(InboxTools::policy(Autonomy::Reversible), MemoryStore::new());
    Ok(RigTools::new(
        driver,
        Inbox::sample(),
        ToolContext::default(),
    )?)
}

/// The model's turn forwarding the invoice (item 3) outside the company: call `c1`, which
/// the tool escalates to irreversible.
fn forward_outside() -> Result<MockTurn, Error> {
    let forward = call("c1", "forward", json!({"id": 3, "to": "x@else.example"}))?;
    Ok(MockTurn::from_contents([forward]))
}

/// A rig agent on the inbox's tools whose model replays `turns`: the model (to read the
/// requests it was sent), the tools and the agent.
fn scripted(
    turns: impl IntoIterator<Item = MockTurn>,
) -> Result<
    (
        MockCompletionModel,
        RigTools<InboxTools, MemoryStore>,
        Agent,
    ),
    Error,
> {
    let model = MockCompletionModel::from_turns(turns);
    let tools = tools()?;
    let agent = AgentBuilder::new(model.clone())
        .default_max_turns(4)
        .toolset(&tools)?
        .build();
    Ok((model, tools, agent))
}

#[tokio::test]
async fn a_read_and_a_write_run_in_their_turn_and_an_irreversible_forward_runs_once_when_approved()
-> Result<(), Error> {
    const OUTSIDE: &str = "billing@partner.example";
    // One turn, three calls in parallel: a read, a write within the autonomy, and a
    // forward outside the company, which the tool escalates to irreversible.
    let (model, tools, agent) = scripted([
        MockTurn::from_contents([
            call("c1", "search", json!({"query": "invoice"}))?,
            call("c2", "archive", json!({"id": 4}))?,
            call("c3", "forward", json!({"id": 3, "to": OUTSIDE}))?,
        ]),
        MockTurn::text("Found the invoice and archived the digest; the forward waits for you."),
        MockTurn::text("The invoice went to billing."),
        MockTurn::text("Nothing new."),
    ])?;

    let answer = agent
        .prompt("Find the invoice, archive the digest and forward the invoice to billing.")
        .await?;
    assert_eq!(
        answer.output(),
        "Found the invoice and archived the digest; the forward waits for you."
    );

    // The second request carries the three answers, each under its call id.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let (search, failed) = result_of(&requests[1], "c1").ok_or("c1 answered")?;
    assert!(!failed, "{search}");
    assert!(
        search.contains("Invoice 4471"),
        "the search's hits: {search}"
    );
    let (archive, failed) = result_of(&requests[1], "c2").ok_or("c2 answered")?;
    assert!(!failed, "{archive}");
    assert_eq!(archive, "archived item 4");
    let (forward, not_run) = result_of(&requests[1], "c3").ok_or("c3 answered")?;
    assert!(not_run, "a withheld call is a skipped result: {forward}");
    assert!(
        forward.to_lowercase().contains("approval"),
        "the model is told the forward awaits approval: {forward}"
    );
    {
        let inbox = tools.state().await;
        assert!(inbox.items.iter().any(|item| item.id == 4 && item.archived));
        assert!(inbox.items.iter().all(|item| item.forwarded_to.is_empty()));
    }

    // The forward was proposed to the human, at the tier its arguments raised it to.
    let proposals = tools.take_proposals();
    assert_eq!(proposals.len(), 1);
    assert_eq!(proposals[0].call().name, "forward");
    assert_eq!(proposals[0].tier(), Tier::Irreversible);
    assert!(tools.take_proposals().is_empty());

    // The human approves it: it runs once; a second approval is refused.
    let reviewed = proposals[0].reviewed();
    match tools.approve(&reviewed).await? {
        Resolved::Ran(report) => assert!(
            report.entries()[0]
                .outcome
                .as_ref()
                .is_some_and(|outcome| outcome.is_done())
        ),
        other => panic!("the approved forward ran: {other:?}"),
    }
    assert!(tools.approve(&reviewed).await.is_err());
    let forwarded = |inbox: &Inbox| {
        inbox
            .items
            .iter()
            .filter(|item| item.forwarded_to.iter().any(|to| to == OUTSIDE))
            .count()
    };
    assert_eq!(forwarded(&*tools.state().await), 1);

    // The next run's prompt tells the model how the forward ended, once.
    agent.prompt("Anything new?").await?;
    agent.prompt("And now?").await?;
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    let told = user_text(&requests[2]);
    assert!(
        told.contains("c3"),
        "the late result names its call: {told}"
    );
    assert!(
        told.contains(&format!("forwarded item 3 (Invoice 4471) to {OUTSIDE}")),
        "{told}"
    );
    assert!(
        told.ends_with("Anything new?"),
        "the prompt comes after: {told}"
    );
    assert_eq!(user_text(&requests[3]), "And now?", "told once, not again");
    assert_eq!(forwarded(&*tools.state().await), 1, "the forward ran once");
    Ok(())
}

#[tokio::test]
async fn one_bad_call_rejects_the_whole_turn_and_nothing_of_it_runs() -> Result<(), Error> {
    // The archive alone would run; with a due date missing its `due` in the same turn,
    // the program is rejected whole.
    let (model, tools, agent) = scripted([
        MockTurn::from_contents([
            call("c1", "archive", json!({"id": 2}))?,
            call("c2", "set_due_date", json!({"id": 1}))?,
        ]),
        MockTurn::text("I will fix the call."),
    ])?;
    agent
        .prompt("Archive the lunch and date the report.")
        .await?;

    let requests = model.requests();
    let (archive, not_run) = result_of(&requests[1], "c1").ok_or("c1 answered")?;
    assert!(not_run, "{archive}");
    let (due, not_run) = result_of(&requests[1], "c2").ok_or("c2 answered")?;
    assert!(not_run, "{due}");
    assert!(
        due.contains("due"),
        "the problem names the missing field: {due}"
    );
    let inbox = tools.state().await;
    assert!(inbox.items.iter().all(|item| !item.archived), "nothing ran");
    assert!(tools.take_proposals().is_empty());
    Ok(())
}

#[tokio::test]
async fn a_declined_call_never_runs_and_the_model_is_told_the_reason_once() -> Result<(), Error> {
    let (model, tools, agent) = scripted([
        forward_outside()?,
        MockTurn::text("Waiting for you."),
        MockTurn::text("Understood."),
        MockTurn::text("Nothing new."),
    ])?;
    agent
        .prompt("Forward the invoice to x@else.example.")
        .await?;
    let proposals = tools.take_proposals();
    assert_eq!(proposals.len(), 1);
    tools.decline(&proposals[0].reviewed(), "not to that address")?;

    agent.prompt("Well?").await?;
    agent.prompt("And now?").await?;
    let requests = model.requests();
    let told = user_text(&requests[2]);
    assert!(told.contains("not to that address"), "{told}");
    assert_eq!(user_text(&requests[3]), "And now?");
    let inbox = tools.state().await;
    assert!(inbox.items.iter().all(|item| item.forwarded_to.is_empty()));
    Ok(())
}

#[tokio::test]
async fn the_tools_without_their_hook_answer_that_they_were_not_checked_and_run_nothing()
-> Result<(), Error> {
    let model = MockCompletionModel::from_turns([
        MockTurn::from_contents([call("c1", "archive", json!({"id": 2}))?]),
        MockTurn::text("Hm."),
    ]);
    let tools = tools()?;
    // The tools registered by hand, their hook forgotten.
    let agent = AgentBuilder::new(model.clone())
        .default_max_turns(2)
        .dynamic_tools(tools.tools()?)
        .build();
    agent.prompt("Archive the lunch.").await?;
    let (archive, refused) = result_of(&model.requests()[1], "c1").ok_or("c1 answered")?;
    assert!(refused, "{archive}");
    assert!(archive.contains("not checked by toolset"), "{archive}");
    assert!(tools.state().await.items.iter().all(|item| !item.archived));
    Ok(())
}

#[tokio::test]
async fn the_agents_own_rig_tools_run_beside_the_set_untouched() -> Result<(), Error> {
    use rig_core::tool::{DynamicTool, ToolOutput};
    let clock = DynamicTool::new(
        ToolName::new("clock")?,
        "The time.",
        json!({"type": "object", "properties": {}}),
        |_| Box::pin(async { Ok(ToolOutput::text("noon")) }),
    );
    let model = MockCompletionModel::from_turns([
        MockTurn::from_contents([
            call("c1", "clock", json!({}))?,
            call("c2", "archive", json!({"id": 2}))?,
        ]),
        MockTurn::text("Done."),
    ]);
    let tools = tools()?;
    let agent = AgentBuilder::new(model.clone())
        .default_max_turns(2)
        .dynamic_tool(clock)
        .toolset(&tools)?
        .build();
    agent
        .prompt("What time is it? And archive the lunch.")
        .await?;
    let requests = model.requests();
    assert_eq!(
        result_of(&requests[1], "c1"),
        Some(("noon".to_owned(), false))
    );
    assert_eq!(
        result_of(&requests[1], "c2"),
        Some(("archived item 2".to_owned(), false))
    );
    // Both were offered: the set's tools after the agent's own.
    let offered: Vec<String> = requests[0]
        .tools
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert!(offered.contains(&"clock".to_owned()) && offered.contains(&"archive".to_owned()));
    Ok(())
}

#[test]
fn rig_is_given_the_tools_a_fresh_conversation_offers() -> Result<(), Error> {
    // The deferred `add_label` and the tool search that finds it are not listed: rig's list
    // is fixed when the agent is built.
    let tools = tools()?;
    assert_eq!(
        tools.names(),
        [
            "search",
            "read_item",
            "set_due_date",
            "archive",
            "forward",
            "send_reply"
        ]
    );
    // Each with the tool's own description and schema, not a provider's strict form: the
    // optional `limit` is not required.
    let rig_tools = tools.tools()?;
    let search = rig_tools[0].definition();
    assert!(
        search
            .description
            .starts_with("Search the inbox by free text")
    );
    assert_eq!(search.parameters["required"], json!(["query"]));
    Ok(())
}

#[tokio::test]
async fn a_streamed_turns_calls_are_gated_as_one_program_too() -> Result<(), Error> {
    use futures_util::StreamExt;
    use rig_core::completion::Usage;
    use rig_core::test_utils::{MockStreamEvent, mock_final};
    let tool_call = |id: &str, name: &str, arguments: Value| MockStreamEvent::ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        call_id: None,
    };
    let model = MockCompletionModel::from_stream_turns([
        vec![
            tool_call("c1", "archive", json!({"id": 2})),
            tool_call("c2", "forward", json!({"id": 3, "to": "x@else.example"})),
            MockStreamEvent::FinalResponse(mock_final(Usage::default())),
        ],
        vec![
            MockStreamEvent::Text("Done; the forward waits.".to_owned()),
            MockStreamEvent::FinalResponse(mock_final(Usage::default())),
        ],
    ]);
    let tools = tools()?;
    let agent = AgentBuilder::new(model.clone())
        .default_max_turns(4)
        .toolset(&tools)?
        .build();
    let mut stream = agent
        .prompt("Archive the lunch, forward the invoice.")
        .stream();
    while let Some(item) = stream.next().await {
        item?;
    }
    let requests = model.requests();
    assert_eq!(
        result_of(&requests[1], "c1"),
        Some(("archived item 2".to_owned(), false))
    );
    let (forward, not_run) = result_of(&requests[1], "c2").ok_or("c2 answered")?;
    assert!(
        not_run && forward.contains("Awaiting approval"),
        "{forward}"
    );
    assert_eq!(tools.take_proposals().len(), 1);
    Ok(())
}

#[tokio::test]
async fn a_conversation_goes_on_in_another_rig_tools_over_the_same_store() -> Result<(), Error> {
    // One store, as two processes would share a database.
    let store: &'static MemoryStore = Box::leak(Box::new(MemoryStore::new()));
    let driver = || Driver::new(InboxTools::policy(Autonomy::Reversible), store);
    let first = RigTools::new(driver(), Inbox::sample(), ToolContext::default())?;
    let model =
        MockCompletionModel::from_turns([forward_outside()?, MockTurn::text("Waiting for you.")]);
    let agent = AgentBuilder::new(model)
        .default_max_turns(2)
        .toolset(&first)?
        .build();
    agent
        .prompt("Forward the invoice to x@else.example.")
        .await?;
    let conversation = first.conversation().clone();
    let proposal = first
        .take_proposals()
        .pop()
        .ok_or("the forward was proposed")?;
    drop((agent, first));

    // Elsewhere: the same conversation, its proposal approved there, its result told there.
    let second = RigTools::resume(
        driver(),
        &conversation,
        Inbox::sample(),
        ToolContext::default(),
    )?;
    second.approve(&proposal.reviewed()).await?;
    let model = MockCompletionModel::from_turns([MockTurn::text("Sent.")]);
    let agent = AgentBuilder::new(model.clone()).toolset(&second)?.build();
    agent.prompt("Well?").await?;
    let told = user_text(&model.requests()[0]);
    assert!(
        told.contains("forwarded item 3 (Invoice 4471) to x@else.example"),
        "{told}"
    );
    Ok(())
}
