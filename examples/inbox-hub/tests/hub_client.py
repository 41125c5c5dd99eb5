#!/usr/bin/env python3
"""Drive inbox-hub with the official MCP Python SDK, over stdio.

usage: python3 examples/inbox-hub/tests/hub_client.py HUB INBOX_MCP CALENDAR_MCP

The hub is started with the paths of the two servers it aggregates. Checks, through a real
client: the hub lists its own tool and both servers' tools, namespaced; a read-only proxied
call runs and returns the remote server's text; a write above the hub's autonomy is
withheld (isError with the approval message) and never reaches its server (its state is
unchanged); a remote error comes back as isError with the remote message; at autonomy
reversible a mapped write runs through the hub, while a tool the hub maps no tier for stays
withheld; and a server's tools/list_changed (inbox-mcp's, after its tool_search) reaches
the hub's client, which then lists and calls the new tool.

Prints one line per check and exits non-zero if any failed.
"""

from __future__ import annotations

import json
import sys
import traceback
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as error:  # pragma: no cover - reported to the Rust test
    print(f"cannot import the MCP client ({error}); "
          "install the MCP client: pip install -r tests/mcp/requirements.txt")
    sys.exit(3)

APPROVAL = "Needs human approval"
TIMEOUT_SECONDS = 60
EXPECTED_TOOLS = [
    "sources",
    "inbox_search", "inbox_read_item", "inbox_set_due_date", "inbox_archive", "inbox_forward",
    "inbox_send_reply", "inbox_tool_search",
    "calendar_free_slots", "calendar_book",
]


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
async def connect(hub: str, inbox: str, calendar: str, *args: str,
                  changes: list[Any]) -> AsyncIterator[ClientSession]:
    """A session with a hub started with `args`; its `tools/list_changed` go to `changes`."""
    params = StdioServerParameters(
        command=hub, args=["--inbox", inbox, "--calendar", calendar, *args])

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changes.append(message)

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            yield session


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "type", None) == "text")


def hit_ids(result: Any) -> list[int] | None:
    try:
        return [hit["id"] for hit in json.loads(text_of(result))]
    except (ValueError, KeyError, TypeError):
        return None


async def at_read_only(c: Checks, session: ClientSession, changes: list[Any]) -> None:
    listed = await session.list_tools()
    names = [tool.name for tool in listed.tools]
    c.check(names == EXPECTED_TOOLS,
            "tools/list: the hub's tool, then each server's tools, namespaced", names)
    tools = {tool.name: tool for tool in listed.tools}
    if "inbox_search" in tools:
        schema = tools["inbox_search"].input_schema
        c.check(schema.get("required") == ["query"],
                "a proxied tool keeps its server's input schema", schema)
        hints = tools["inbox_search"].annotations
        c.check(hints is not None and hints.read_only_hint is True,
                "inbox_search, mapped read_only by the hub, is listed read-only", hints)
    if "inbox_archive" in tools:
        hints = tools["inbox_archive"].annotations
        c.check(hints is not None and hints.read_only_hint is False,
                "inbox_archive, mapped reversible, is not listed read-only", hints)
    if "inbox_send_reply" in tools:
        hints = tools["inbox_send_reply"].annotations
        c.check(hints is not None and hints.destructive_hint is True,
                "inbox_send_reply, mapped nothing by the hub, is listed irreversible", hints)

    result = await session.call_tool("sources", {})
    c.check(result.is_error is False and "inbox_*" in text_of(result)
            and "calendar_*" in text_of(result),
            "the hub's own compiled tool runs beside the proxied ones", text_of(result))

    result = await session.call_tool("inbox_search", {"query": "report"})
    c.check(result.is_error is False and hit_ids(result) == [1],
            "a read-only proxied call runs and returns the remote server's text", text_of(result))
    result = await session.call_tool("calendar_free_slots", {"day": "2026-12-02"})
    c.check(result.is_error is False and text_of(result) == "free on 2026-12-02: 09:00, 11:00, 15:00",
            "the second server's read-only tool runs through the hub", text_of(result))

    result = await session.call_tool("inbox_archive", {"id": 1})
    text = text_of(result)
    c.check(result.is_error is True and APPROVAL in text and "inbox_archive" in text
            and "reversible" in text,
            "a write above the hub's autonomy is withheld: isError, approval message, tier", text)
    result = await session.call_tool("inbox_search", {"query": "report"})
    c.check(hit_ids(result) == [1],
            "the withheld archive never reached inbox-mcp: item 1 is still in the inbox",
            text_of(result))

    result = await session.call_tool("calendar_free_slots", {"day": "2027-01-01"})
    text = text_of(result)
    c.check(result.is_error is True and 'there is no calendar for "2027-01-01"' in text,
            "a remote error comes back as isError with the remote message", text)

    result = await session.call_tool("inbox_search", {"query": 7})
    c.check(result.is_error is True and "query" in text_of(result),
            "the hub's gate checks a proxied tool's arguments against its schema", text_of(result))
    result = await session.call_tool("search", {"query": "report"})
    c.check(result.is_error is True and "inbox_search" in text_of(result),
            "an un-namespaced name is unknown, and the message names the namespaced tools",
            text_of(result))


async def at_reversible(c: Checks, session: ClientSession, changes: list[Any]) -> None:
    result = await session.call_tool("calendar_book", {"day": "2026-12-02", "slot": "11:00"})
    c.check(result.is_error is False and text_of(result) == "booked 2026-12-02 11:00",
            "at autonomy reversible, a write the hub mapped reversible runs", text_of(result))
    result = await session.call_tool("calendar_free_slots", {"day": "2026-12-02"})
    c.check(text_of(result) == "free on 2026-12-02: 09:00, 15:00",
            "the write changed the calendar server's state", text_of(result))
    result = await session.call_tool("inbox_send_reply", {"to": "ana@example.com", "body": "Done."})
    text = text_of(result)
    c.check(result.is_error is True and APPROVAL in text and "irreversible" in text,
            "a tool the hub maps no tier for is irreversible: withheld at any autonomy", text)

    # inbox-mcp's deferred add_label: its tool_search activates it (for the hub's connection),
    # inbox-mcp says its list changed, and the hub tells its own client.
    before = [tool.name for tool in (await session.list_tools()).tools]
    c.check("inbox_add_label" not in before and changes == [],
            "inbox-mcp's deferred add_label is not listed before a search", before)
    result = await session.call_tool("inbox_tool_search", {"query": "label items"})
    c.check(result.is_error is False and "add_label" in text_of(result),
            "inbox_tool_search runs through the hub and finds add_label", text_of(result))
    with anyio.move_on_after(10):
        while not changes:
            await anyio.sleep(0.02)
    c.check(len(changes) >= 1,
            "the downstream list_changed reaches the hub's client as tools/list_changed", changes)
    after = [tool.name for tool in (await session.list_tools()).tools]
    c.check("inbox_add_label" in after, "the hub lists inbox_add_label from then on", after)
    result = await session.call_tool("inbox_add_label", {"id": 1, "label": "finance"})
    c.check(result.is_error is False and text_of(result) == "labelled item 1 finance",
            "the newly listed tool, mapped reversible, runs through the hub", text_of(result))


async def run(hub: str, inbox: str, calendar: str) -> Checks:
    c = Checks()
    for args, body in (((), at_read_only), (("--autonomy", "reversible"), at_reversible)):
        try:
            with anyio.fail_after(TIMEOUT_SECONDS):
                changes: list[Any] = []
                async with connect(hub, inbox, calendar, *args, changes=changes) as session:
                    await body(c, session, changes)
        except Exception:  # noqa: BLE001 - every failure is reported, not raised
            c.check(False, f"the session {body.__name__} finished", traceback.format_exc())
    return c


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    checks = anyio.run(run, *sys.argv[1:])
    print(f"\n{checks.passed} passed, {len(checks.failures)} failed")
    for failure in checks.failures:
        print(f"  failed: {failure}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
