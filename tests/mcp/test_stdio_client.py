#!/usr/bin/env python3
"""Drive the inbox-mcp server with the official MCP Python SDK, over stdio.

usage: python3 tests/mcp/test_stdio_client.py [PATH_TO_INBOX_MCP_BINARY]
       (or set INBOX_MCP_BIN)

Checks, through a real client: the tool list (names, tier-derived annotations, input and
output schemas), an auto-runnable call and its structured result, progress notifications,
calls withheld for a human (isError with the approval message and the tier), bad
arguments and unknown tools (isError), a write that runs at a higher autonomy and the
state it leaves, a withheld call put to the user by elicitation (runs only on accept), a
deferred tool found by `tool_search` (unknown before, announced by
notifications/tools/list_changed, then listed and callable), and the same over the
2026-07-28 protocol (server/discover), where a withheld call is put to the user by
`input_required` (the server started with `--approval-key-env`): it runs once on an
accepting retry, never on a replay or a decline; then, with the server started as
`--http 127.0.0.1:PORT`, the same client over streamable HTTP.

Prints one line per check and exits non-zero if any failed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import traceback
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
except ImportError as error:  # pragma: no cover - reported to the Rust test
    print(f"cannot import the MCP client ({error}); "
          "install the MCP client: pip install -r tests/mcp/requirements.txt")
    sys.exit(3)

# `add_label` is deferred: not listed until a search finds it; `tool_search` is listed instead.
EXPECTED_TOOLS = ["search", "read_item", "set_due_date", "archive", "forward", "send_reply", "tool_search"]
APPROVAL = "Needs human approval"
# A call the user declined when asked: the model is told so, not to ask again.
DECLINED = "Declined by the user"
TIMEOUT_SECONDS = 60


class Checks:
    """Collects pass/fail results so one run reports every failure."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def check(self, condition: bool, what: str, detail: Any = None) -> bool:
        if condition:
            self.passed += 1
            print(f"ok    {what}")
        else:
            message = what if detail is None else f"{what}: got {detail!r}"
            self.failures.append(message)
            print(f"FAIL  {message}")
        return condition


@asynccontextmanager
async def connect(binary: str, *args: str, modern: bool = False, elicitation: Any = None,
                  env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A client session with the server, via the initialize handshake or server/discover;
    with `elicitation`, the client declares the capability and answers with it."""
    params = StdioServerParameters(command=binary, args=list(args), env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as session:
            if modern:
                await session.discover()
            else:
                await session.initialize()
            yield session


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "type", None) == "text")


async def check_tool_list(c: Checks, session: ClientSession) -> None:
    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    c.check([tool.name for tool in listed.tools] == EXPECTED_TOOLS,
             "tools/list names, in declared order", [tool.name for tool in listed.tools])
    if set(tools) != set(EXPECTED_TOOLS):
        return

    def hints(name: str) -> Any:
        return tools[name].annotations

    for name in ("search", "read_item"):
        c.check(hints(name) is not None and hints(name).read_only_hint is True,
                f"{name} (read_only) has readOnlyHint true", hints(name))
    for name in ("set_due_date", "archive"):
        a = hints(name)
        c.check(a is not None and a.read_only_hint is False and a.destructive_hint is False
                and a.open_world_hint is False,
                f"{name} (reversible) is not read-only, not destructive, closed-world", a)
    c.check(hints("set_due_date").idempotent_hint is True,
            "set_due_date (declared idempotent) has idempotentHint true", hints("set_due_date"))
    reply = hints("send_reply")
    c.check(reply is not None and reply.read_only_hint is False and reply.destructive_hint is True,
            "send_reply (irreversible) has destructiveHint true", reply)
    c.check(tools["send_reply"].title == "Send reply" and reply.title == "Send reply",
            "send_reply carries its declared title", (tools["send_reply"].title, reply.title))

    search_tool = tools["tool_search"]
    c.check(search_tool.annotations is not None and search_tool.annotations.read_only_hint is True
            and search_tool.input_schema.get("required") == ["query"],
            "tool_search (offered because add_label is deferred) is read-only and takes a query",
            (search_tool.annotations, search_tool.input_schema))

    for name, tool in tools.items():
        schema = tool.input_schema
        c.check(schema.get("type") == "object" and schema.get("additionalProperties") is False,
                f"{name} inputSchema is a closed object", schema)
        c.check(bool(tool.description), f"{name} has a description")

    search = tools["search"].input_schema
    c.check(search.get("required") == ["query"]
            and search["properties"]["query"].get("type") == "string"
            and "limit" in search["properties"],
            "search inputSchema: required query (string), optional limit", search)
    read = tools["read_item"].input_schema
    c.check(read.get("required") == ["id"] and read["properties"]["id"].get("type") == "integer"
            and read["properties"]["id"].get("minimum") == 0,
            "read_item inputSchema: required non-negative integer id", read)
    c.check(sorted(tools["send_reply"].input_schema.get("required", [])) == ["body", "to"],
            "send_reply inputSchema requires to and body", tools["send_reply"].input_schema)
    out = tools["read_item"].output_schema
    c.check(out is not None and out.get("type") == "object"
            and {"id", "subject", "body"} <= set(out.get("properties", {})),
            "read_item has an object outputSchema (it returns Json<Item>)", out)
    c.check(tools["search"].output_schema is None,
            "search has no outputSchema (its Json<Vec<Hit>> is not an object)",
            tools["search"].output_schema)


async def check_read_only_calls(c: Checks, session: ClientSession) -> None:
    # The SDK validates structuredContent against read_item's outputSchema itself.
    result = await session.call_tool("read_item", {"id": 1})
    c.check(result.is_error is False, "read_item runs (read_only, auto-runnable)", text_of(result))
    structured = result.structured_content or {}
    c.check(structured.get("id") == 1 and structured.get("subject") == "Quarterly report"
            and structured.get("due") is None and structured.get("archived") is False,
            "read_item returns the item as structuredContent", structured)
    try:
        c.check(json.loads(text_of(result)) == structured,
                "read_item's text content is the same JSON, for text-only clients", text_of(result))
    except ValueError:
        c.check(False, "read_item's text content is JSON", text_of(result))

    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    result = await session.call_tool("search", {"query": "invoice"}, progress_callback=on_progress)
    c.check(result.is_error is False, "search runs", text_of(result))
    try:
        hits = json.loads(text_of(result))
    except ValueError:
        hits = None
    c.check(isinstance(hits, list) and [hit.get("id") for hit in hits] == [3],
            "search finds the invoice (item 3)", hits)
    c.check(result.structured_content is None,
            "search sends no structuredContent (MCP requires an object)", result.structured_content)
    c.check(reports == [(1.0, 1.0, "searched")],
            "search's progress arrives as notifications/progress", reports)


async def check_withheld_and_bad_calls(c: Checks, session: ClientSession) -> None:
    result = await session.call_tool("set_due_date", {"id": 2, "due": "2026-12-05"})
    text = text_of(result)
    c.check(result.is_error is True and APPROVAL in text and "reversible" in text,
            "set_due_date at autonomy read_only is withheld: isError, approval message, tier", text)
    result = await session.call_tool("send_reply", {"to": "ana@example.com", "body": "Done."})
    text = text_of(result)
    c.check(result.is_error is True and APPROVAL in text and "irreversible" in text,
            "send_reply (irreversible, propose-only) is withheld: isError, approval message, tier",
            text)

    result = await session.call_tool("read_item", {"id": "one"})
    text = text_of(result)
    c.check(result.is_error is True and "Invalid arguments" in text and "read_item" in text,
            "read_item with a string id is rejected with isError", text)
    result = await session.call_tool("search", {})
    text = text_of(result)
    c.check(result.is_error is True and "query" in text,
            "search without its required query is rejected with isError", text)
    result = await session.call_tool("search", {"query": "x", "colour": "red"})
    c.check(result.is_error is True and "colour" in text_of(result),
            "an argument the schema does not have is rejected with isError", text_of(result))
    result = await session.call_tool("delete_everything", {})
    text = text_of(result)
    c.check(result.is_error is True and "no tool named" in text and "search" in text,
            "an unknown tool is rejected with isError, listing the available tools", text)
    result = await session.call_tool("read_item", {"id": 99})
    text = text_of(result)
    c.check(result.is_error is True and "no item 99" in text,
            "a handler failure comes back as isError with its message", text)


async def check_reversible_autonomy(c: Checks, binary: str) -> None:
    async with connect(binary, "--autonomy", "reversible") as session:
        result = await session.call_tool("set_due_date", {"id": 2, "due": "2026-12-05"})
        c.check(result.is_error is False and "now due 2026-12-05" in text_of(result),
                "at autonomy reversible, set_due_date runs", text_of(result))
        result = await session.call_tool("read_item", {"id": 2})
        c.check((result.structured_content or {}).get("due") == "2026-12-05",
                "the write is visible to the next call (shared state)", result.structured_content)
        result = await session.call_tool("set_due_date", {"id": 2, "due": "2026-12-05"})
        c.check(result.is_error is False and "Skipped" in text_of(result),
                "repeating it is skipped (a business brake, not an error)", text_of(result))
        result = await session.call_tool("send_reply", {"to": "ben@example.com", "body": "Yes!"})
        c.check(result.is_error is True and "irreversible" in text_of(result),
                "send_reply is withheld at any autonomy", text_of(result))


async def check_tool_search(c: Checks, binary: str) -> None:
    """A deferred tool is unknown until `tool_search` finds it; the server then says the
    list changed, lists it after the others, and a call to it runs."""
    changes: list[Any] = []

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changes.append(message)

    params = StdioServerParameters(command=binary, args=["--autonomy", "reversible"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            info = await session.initialize()
            tools_capability = info.capabilities.tools
            c.check(tools_capability is not None and tools_capability.list_changed is True,
                    "tool search: the server advertises tools.listChanged", tools_capability)
            before = [tool.name for tool in (await session.list_tools()).tools]
            result = await session.call_tool("add_label", {"id": 1, "label": "finance"})
            text = text_of(result)
            offered = text.split("The available tools are: ", 1)[-1].split(".", 1)[0].split(", ")
            c.check(result.is_error is True and "no tool named \"add_label\"" in text
                    and offered == before,
                    "tool search: the deferred add_label is unknown before a search, and the "
                    "message names only the listed tools", text)
            c.check(changes == [], "tool search: no list_changed before a search", changes)
            result = await session.call_tool("tool_search", {"query": "label items"})
            c.check(result.is_error is False and "add_label" in text_of(result),
                    "tool search: tool_search finds add_label", text_of(result))
            with anyio.move_on_after(5):
                while not changes:
                    await anyio.sleep(0.02)
            c.check(len(changes) == 1,
                    "tool search: notifications/tools/list_changed received", changes)
            after = [tool.name for tool in (await session.list_tools()).tools]
            c.check(after == before + ["add_label"],
                    "tool search: add_label is listed after the others", after)
            result = await session.call_tool("add_label", {"id": 1, "label": "finance"})
            c.check(result.is_error is False and text_of(result) == "labelled item 1 finance",
                    "tool search: the found tool runs", text_of(result))
            result = await session.call_tool("read_item", {"id": 1})
            c.check("finance" in (result.structured_content or {}).get("labels", []),
                    "tool search: its write is in the state", result.structured_content)


async def check_modern_protocol(c: Checks, binary: str) -> None:
    async with connect(binary, modern=True) as session:
        c.check(session.protocol_version == "2026-07-28",
                "server/discover negotiates 2026-07-28", session.protocol_version)
        listed = await session.list_tools()
        c.check([tool.name for tool in listed.tools] == EXPECTED_TOOLS,
                "2026-07-28: tools/list", [tool.name for tool in listed.tools])
        result = await session.call_tool("read_item", {"id": 3})
        c.check(result.is_error is False
                and (result.structured_content or {}).get("due") == "2026-12-01",
                "2026-07-28: read_item returns structuredContent", result.structured_content)
        result = await session.call_tool("archive", {"id": 4})
        c.check(result.is_error is True and APPROVAL in text_of(result),
                "2026-07-28: archive is withheld", text_of(result))


async def check_input_required(c: Checks, binary: str) -> None:
    """2026-07-28: a withheld call answers input_required; the accepting retry runs it once."""
    from mcp import types

    asked: list[Any] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"approve": True})

    key = {"INBOX_MCP_APPROVAL_KEY": "a test key of at least thirty-two bytes"}
    async with connect(binary, "--approval-key-env", "INBOX_MCP_APPROVAL_KEY", modern=True,
                       elicitation=on_elicit, env=key) as session:
        arguments = {"id": 2, "due": "2027-02-02"}
        first = await session.call_tool("set_due_date", arguments, allow_input_required=True)
        c.check(isinstance(first, types.InputRequiredResult) and bool(first.request_state),
                "input_required: a withheld call asks, with a requestState", first)
        if not isinstance(first, types.InputRequiredResult):
            return
        form = (first.input_requests or {}).get("approval")
        message = getattr(getattr(form, "params", None), "message", "")
        c.check("set_due_date" in message and "reversible" in message and "2027-02-02" in message,
                "input_required: the form shows the tool, tier and arguments", message)
        read = await session.call_tool("read_item", {"id": 2})
        c.check((read.structured_content or {}).get("due") != "2027-02-02",
                "input_required: nothing ran before the answer", read.structured_content)
        accept = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
        ran = await session.call_tool("set_due_date", arguments, input_responses=accept,
                                      request_state=first.request_state)
        c.check(ran.is_error is False and "now due 2027-02-02" in text_of(ran),
                "input_required: the accepting retry runs the call", text_of(ran))
        replay = await session.call_tool("set_due_date", arguments, input_responses=accept,
                                         request_state=first.request_state)
        c.check(replay.is_error is True and APPROVAL in text_of(replay),
                "input_required: a replayed retry is withheld", text_of(replay))
        other = {"id": 3, "due": "2030-01-01"}
        forged = await session.call_tool("set_due_date", other, input_responses=accept,
                                         request_state=first.request_state)
        c.check(forged.is_error is True and APPROVAL in text_of(forged),
                "input_required: another call's requestState is withheld", text_of(forged))
        second = await session.call_tool("archive", {"id": 4}, allow_input_required=True)
        decline = {"approval": types.ElicitResult(action="decline")}
        declined = await session.call_tool("archive", {"id": 4}, input_responses=decline,
                                           request_state=getattr(second, "request_state", None))
        c.check(declined.is_error is True and DECLINED in text_of(declined),
                "input_required: a declined retry is answered as declined", text_of(declined))
        read = await session.call_tool("read_item", {"id": 3})
        c.check((read.structured_content or {}).get("due") != "2030-01-01",
                "input_required: the forged call did not run", read.structured_content)


async def check_elicitation(c: Checks, binary: str) -> None:
    """A withheld call asks the human (the elicitation callback); only an accept runs it."""
    from mcp import types

    asked: list[Any] = []
    answers: list[types.ElicitResult] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return answers.pop(0)

    async with connect(binary, elicitation=on_elicit) as session:
        answers.append(types.ElicitResult(action="decline"))
        result = await session.call_tool("set_due_date", {"id": 1, "due": "2027-01-01"})
        message = getattr(asked[0], "message", "") if asked else ""
        c.check(len(asked) == 1 and "set_due_date" in message and "reversible" in message
                and "2027-01-01" in message,
                "elicitation: a withheld call asks the user with the tool, tier and arguments",
                message)
        c.check(result.is_error is True and DECLINED in text_of(result),
                "elicitation: declined, the call is answered as declined", text_of(result))
        answers.append(types.ElicitResult(action="accept", content={"approve": False}))
        result = await session.call_tool("set_due_date", {"id": 1, "due": "2027-01-01"})
        c.check(result.is_error is True and DECLINED in text_of(result),
                "elicitation: accepted without ticking the box, the call is answered as declined",
                text_of(result))
        read = await session.call_tool("read_item", {"id": 1})
        c.check((read.structured_content or {}).get("due") != "2027-01-01",
                "elicitation: nothing ran before an explicit approval", read.structured_content)
        answers.append(types.ElicitResult(action="accept", content={"approve": True}))
        result = await session.call_tool("set_due_date", {"id": 1, "due": "2027-01-01"})
        c.check(result.is_error is False and "now due 2027-01-01" in text_of(result),
                "elicitation: accepted, the call runs", text_of(result))
        read = await session.call_tool("read_item", {"id": 1})
        c.check((read.structured_content or {}).get("due") == "2027-01-01",
                "elicitation: the approved write is in the state", read.structured_content)
        before = len(asked)
        result = await session.call_tool("send_reply", {"to": "a@b.c", "body": "x"})
        c.check(len(asked) == before and result.is_error is True,
                "elicitation: a propose-only tool is withheld without asking", text_of(result))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def check_http(c: Checks, binary: str) -> None:
    """The same client over streamable HTTP, against `inbox-mcp --http` on 127.0.0.1."""
    port = _free_port()
    server = subprocess.Popen([binary, "--http", f"127.0.0.1:{port}",
                               "--approval-key-env", "INBOX_MCP_APPROVAL_KEY"],
                              env={**os.environ,
                                   "INBOX_MCP_APPROVAL_KEY": "a test key of at least thirty-two bytes"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"inbox-mcp --http did not start listening on {port}")
                await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        for modern in (False, True):
            era = "2026-07-28" if modern else "handshake"
            async with streamable_http_client(url) as (read, write):
                # 2026-07-28: the client can show forms, so a withheld call asks by input_required.
                elicitation = _approving if modern else None
                async with ClientSession(read, write, elicitation_callback=elicitation) as session:
                    if modern:
                        await session.discover()
                    else:
                        await session.initialize()
                    listed = await session.list_tools()
                    c.check([tool.name for tool in listed.tools] == EXPECTED_TOOLS,
                            f"HTTP ({era}): tools/list", [tool.name for tool in listed.tools])
                    result = await session.call_tool("read_item", {"id": 1})
                    c.check(result.is_error is False
                            and (result.structured_content or {}).get("id") == 1,
                            f"HTTP ({era}): read_item returns structuredContent",
                            result.structured_content)
                    reports: list[float] = []

                    async def on_progress(progress: float, total: float | None,
                                          message: str | None) -> None:
                        reports.append(progress)

                    result = await session.call_tool("search", {"query": "lunch"},
                                                     progress_callback=on_progress)
                    c.check(result.is_error is False and "Lunch?" in text_of(result)
                            and reports == [1.0],
                            f"HTTP ({era}): search runs and reports progress",
                            (text_of(result), reports))
                    result = await session.call_tool("send_reply", {"to": "a@b.c", "body": "x"})
                    c.check(result.is_error is True and APPROVAL in text_of(result),
                            f"HTTP ({era}): send_reply is withheld", text_of(result))
                    if modern:
                        await check_http_input_required(c, session)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


async def _approving(context: Any, params: Any) -> Any:
    from mcp import types

    return types.ElicitResult(action="accept", content={"approve": True})


async def check_http_input_required(c: Checks, session: ClientSession) -> None:
    """2026-07-28 over HTTP, where every request is a session of its own: ask, then run once."""
    from mcp import types

    arguments = {"id": 1, "due": "2031-03-03"}
    first = await session.call_tool("set_due_date", arguments, allow_input_required=True)
    state = getattr(first, "request_state", None)
    c.check(isinstance(first, types.InputRequiredResult) and bool(state),
            "HTTP (2026-07-28): a withheld call answers input_required", first)
    accept = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
    ran = await session.call_tool("set_due_date", arguments, input_responses=accept,
                                  request_state=state)
    c.check(ran.is_error is False and "now due 2031-03-03" in text_of(ran),
            "HTTP (2026-07-28): the accepting retry runs the call", text_of(ran))
    replay = await session.call_tool("set_due_date", arguments, input_responses=accept,
                                     request_state=state)
    c.check(replay.is_error is True and APPROVAL in text_of(replay),
            "HTTP (2026-07-28): a replayed retry is withheld", text_of(replay))


def _innermost(error: BaseException) -> str:
    """The first leaf exception of a (possibly nested) exception group, as one line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}".replace("\n", " | ")


async def run(binary: str) -> Checks:
    c = Checks()
    steps = [
        ("handshake", None),
        ("reversible autonomy", check_reversible_autonomy),
        ("2026-07-28 protocol", check_modern_protocol),
        ("input_required", check_input_required),
        ("elicitation", check_elicitation),
        ("tool search", check_tool_search),
        ("streamable HTTP", check_http),
    ]
    for name, step in steps:
        try:
            with anyio.fail_after(TIMEOUT_SECONDS):
                if step is None:
                    async with connect(binary) as session:
                        info = session.initialize_result
                        c.check(info is not None and info.server_info.name == "inbox-mcp"
                                and info.capabilities.tools is not None,
                                "initialize: serverInfo inbox-mcp with the tools capability",
                                info and info.server_info)
                        await check_tool_list(c, session)
                        await check_read_only_calls(c, session)
                        await check_withheld_and_bad_calls(c, session)
                else:
                    await step(c, binary)
        except Exception as error:  # a crash of one step is a failure, the others still run
            traceback.print_exc(file=sys.stdout)
            c.check(False, f"{name}: the session raised", _innermost(error))
    return c


def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("INBOX_MCP_BIN", "")
    if not binary or not os.path.exists(binary):
        print("usage: test_stdio_client.py PATH_TO_INBOX_MCP (or set INBOX_MCP_BIN); "
              f"no binary at {binary!r}")
        return 2
    checks = anyio.run(run, binary)
    print(f"\n{checks.passed} passed, {len(checks.failures)} failed")
    for failure in checks.failures:
        print(f"  failed: {failure}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
