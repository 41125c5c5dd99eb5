#!/usr/bin/env python3
"""The official MCP Python SDK as the client of a handler that logs and asks.

The handler (`curious`, tests/src/asking.rs, served by the `mcp_asking` binary) logs, then
asks the user (elicitation), the client's model (sampling) and the client's roots. One
client declaring all three is asked each and its answers reach the handler; one declaring
none is never asked, and the handler reads, for each, which capability was missing. Both
over the 2025-11-25 handshake, where the asks are requests to the client, and over
2026-07-28 (server/discover), where each is a round of `input_required` that the SDK's
`Client` drives through the same callbacks.

usage: python3 tests/mcp/asking_client.py <mcp_asking binary | http://.../mcp>
       over stdio (the client starts the binary) or streamable HTTP (the server already
       runs there). Prints one line a check and "N passed, M failed"; exits non-zero when
       any failed or none ran.
"""

from __future__ import annotations

import sys
import traceback
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

try:
    import anyio
    from mcp import Client, ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
except ImportError as error:  # pragma: no cover - reported to the Rust test
    print(f"cannot import the MCP client ({error}); "
          "install it: pip install -r tests/mcp/requirements.txt")
    sys.exit(3)

TIMEOUT_SECONDS = 30


class Checks:
    """One line a check, and the tally the Rust test reads."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, what: str, condition: bool, detail: Any = None) -> None:
        if condition:
            self.passed += 1
            print(f"ok   {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}: {detail!r}")


@asynccontextmanager
async def transport(server: str) -> AsyncIterator[tuple[Any, Any]]:
    """The streams to `server`: a binary started over stdio, or an http:// URL."""
    if server.startswith("http://"):
        async with streamable_http_client(server) as (read, write):
            yield read, write
    else:
        async with stdio_client(StdioServerParameters(command=server)) as (read, write):
            yield read, write


# The answers of a client that declared elicitation, sampling and roots.
async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"folder": "work"})


async def on_sample(context: Any, params: types.CreateMessageRequestParams
                    ) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="three unread"),
        model="test-model",
        stop_reason="endTurn",
    )


async def on_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///home/ada/mail", name="mail")])

async def logged(seen: list[dict[str, Any]], params: types.LoggingMessageNotificationParams
                 ) -> None:
    """Records a log message the handler sent."""
    seen.append({"log": params.data})


def recording(session: ClientSession, seen: list[dict[str, Any]]) -> None:
    """Records in `seen` every ask that reaches the client, declared or not: each passes
    `dispatch_input_request` before its callback (or the SDK's refusal for an undeclared
    one), whether sent as a server request or embedded in an `input_required` round."""
    answer = session.dispatch_input_request

    async def recorded(context: Any, request: Any) -> Any:
        seen.append({request.method: request.params.model_dump(
            by_alias=True, mode="json", exclude_none=True) if request.params else {}})
        return await answer(context, request)

    session.dispatch_input_request = recorded  # type: ignore[method-assign]


@asynccontextmanager
async def connect(server: str, declares: bool, seen: list[dict[str, Any]]
                  ) -> AsyncIterator[ClientSession]:
    """A session over the 2025-11-25 handshake, where a handler's asks are requests to the
    client. With `declares`, the client answers elicitation, sampling and roots (the SDK
    declares a capability exactly when its callback is given); every ask that reaches the
    client is recorded in `seen`, declared or not, so one that should never come shows."""
    async with transport(server) as (read, write):
        async with ClientSession(
            read, write,
            elicitation_callback=on_elicit if declares else None,
            sampling_callback=on_sample if declares else None,
            list_roots_callback=on_roots if declares else None,
            logging_callback=lambda params: logged(seen, params),
        ) as session:
            recording(session, seen)
            await session.initialize()
            yield session


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", None) == "text")


async def curious(session: ClientSession) -> list[str]:
    return text_of(await session.call_tool("curious", {})).split("\n")


async def run(server: str) -> Checks:
    c = Checks()
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(TIMEOUT_SECONDS):
        async with connect(server, True, seen) as session:
            c.check("the handshake negotiates 2025-11-25, where asks are requests to the client",
                    session.protocol_version == "2025-11-25", session.protocol_version)
            lines = await curious(session)
            c.check("elicitation: the user's answer reaches the handler",
                    lines[0:1] == ['user: accept Some({"folder": String("work")})'], lines)
            c.check("sampling: the model's answer reaches the handler",
                    lines[1:2] == ['model: test-model Some("three unread")'], lines)
            c.check("roots: the client's roots reach the handler",
                    lines[2:3] == ['roots: ["file:///home/ada/mail"]'], lines)
            form = next((s["elicitation/create"] for s in seen if "elicitation/create" in s), {})
            folder = form.get("requestedSchema", {}).get("properties", {}).get("folder", {})
            c.check("elicitation: the form as the handler wrote it, its default kept",
                    form.get("message") == "Which folder?" and folder.get("default") == "inbox",
                    form)
            sampling = next((s["sampling/createMessage"] for s in seen
                             if "sampling/createMessage" in s), {})
            messages = sampling.get("messages") or [{}]
            c.check("sampling: the prompt and the token limit as the handler wrote them",
                    sampling.get("maxTokens") == 50
                    and messages[0].get("content", {}).get("text") == "Summarize the inbox",
                    sampling)
            c.check("roots: the client was asked for them once",
                    sum(1 for s in seen if "roots/list" in s) == 1, seen)
            # Over HTTP the message comes on the session's standalone stream: give it a moment.
            for _ in range(20):
                if any("log" in s for s in seen):
                    break
                await anyio.sleep(0.1)
            c.check("logging: the handler's message reached the client",
                    any(s.get("log") == "asking the client" for s in seen), seen)

        bare: list[dict[str, Any]] = []
        async with connect(server, False, bare) as session:
            refused = await curious(session)
            for i, capability in enumerate(["elicitation", "sampling", "roots"]):
                line = refused[i] if i < len(refused) else ""
                c.check(f"without {capability}: the handler reads which capability is missing",
                        line.startswith("error: ")
                        and f"did not declare the `{capability}` capability" in line, refused)
            c.check("without capabilities: the client is never asked",
                    all("log" in s for s in bare), bare)

        # 2026-07-28 (server/discover): the same asks, each a round of input_required that
        # the SDK's Client drives through the same callbacks.
        for declares in (True, False):
            asked: list[dict[str, Any]] = []
            target = server if server.startswith("http://") else StdioServerParameters(command=server)
            callbacks = ({"elicitation_callback": on_elicit, "sampling_callback": on_sample,
                          "list_roots_callback": on_roots} if declares else {})
            async with Client(target, **callbacks) as client:
                recording(client.session, asked)
                what = "rounds" if declares else "rounds without capabilities"
                c.check(f"{what}: server/discover negotiates 2026-07-28",
                        client.session.protocol_version == "2026-07-28",
                        client.session.protocol_version)
                result = await client.call_tool("curious", {})
                lines = text_of(result).split("\n")
                if declares:
                    c.check("rounds: the user's, the model's and the roots' answers reach the handler",
                            lines == ['user: accept Some({"folder": String("work")})',
                                      'model: test-model Some("three unread")',
                                      'roots: ["file:///home/ada/mail"]'], lines)
                    c.check("rounds: each ask reached the client once, in the handler's order",
                            [next(iter(s)) for s in asked]
                            == ["elicitation/create", "sampling/createMessage", "roots/list"],
                            asked)
                else:
                    c.check(f"{what}: the handler reads each missing one",
                            [line.startswith("error: ") and "did not declare" in line
                             for line in lines] == [True, True, True], lines)
                    c.check(f"{what}: the client is never asked", asked == [], asked)
    return c


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python3 asking_client.py <mcp_asking binary | http://.../mcp>")
        return 2
    try:
        checks = anyio.run(run, sys.argv[1])
    except Exception:  # reported as a failed check, with what broke
        traceback.print_exc()
        print("FAIL no error")
        print("0 passed, 1 failed")
        return 1
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 0 if checks.failed == 0 and checks.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
