// The official MCP TypeScript SDK as the client of a handler that logs and asks
// (tests/src/asking.rs, served by the mcp_asking binary): one client declaring elicitation,
// sampling and roots is asked each and its answers reach the handler; one declaring none
// is never asked, and the handler reads, for each, which capability was missing.
//
// node asking_client.mjs <mcp_asking binary | http://.../mcp>: over stdio (the client
// starts the binary) or streamable HTTP (the server already runs there); prints one line a
// check and "N passed, M failed"; exits non-zero when any failed.

import { check, finish, serverArgument } from "./checks.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const server = serverArgument("asking_client.mjs");

const timeout = { timeout: 20000 };

// A client declaring `capabilities`, answering every ask it gets and recording it.
async function connect(capabilities) {
  const seen = [];
  const client = new Client({ name: "toolset-asking-test", version: "1.0.0" }, { capabilities });
  // The SDK takes a handler only for a declared capability; any other request the
  // server sends lands in the fallback, recorded, so an ask that should never come shows.
  client.fallbackRequestHandler = async (request) => {
    seen.push({ [request.method]: request.params ?? {} });
    throw new Error(`${request.method} was not declared`);
  };
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push({ elicitation: request.params });
      return { action: "accept", content: { folder: "work" } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      seen.push({ sampling: request.params });
      return {
        role: "assistant",
        content: { type: "text", text: "three unread" },
        model: "test-model",
        stopReason: "endTurn",
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      seen.push({ roots: {} });
      return { roots: [{ uri: "file:///home/ada/mail", name: "mail" }] };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
    seen.push({ log: notification.params.data });
  });
  const transport = server.startsWith("http://")
    ? new StreamableHTTPClientTransport(new URL(server))
    : new StdioClientTransport({ command: server, stderr: "inherit" });
  await client.connect(transport, timeout);
  return { client, seen };
}

const text = (result) => (result.content ?? []).map((part) => part.text ?? "").join("");
const curious = async (client) =>
  text(await client.callTool({ name: "curious", arguments: {} }, undefined, timeout)).split("\n");

try {
  const { client, seen } = await connect({ elicitation: { form: {} }, sampling: {}, roots: {} });
  const lines = await curious(client);
  check("elicitation: the user's answer reaches the handler", lines[0] === 'user: accept Some({"folder": String("work")})', lines);
  check("sampling: the model's answer reaches the handler", lines[1] === 'model: test-model Some("three unread")', lines);
  check("roots: the client's roots reach the handler", lines[2] === 'roots: ["file:///home/ada/mail"]', lines);
  const form = seen.find((s) => s.elicitation)?.elicitation;
  check(
    "elicitation: the form as the handler wrote it, its default kept",
    form?.message === "Which folder?" && form?.requestedSchema?.properties?.folder?.default === "inbox",
    form,
  );
  const sampling = seen.find((s) => s.sampling)?.sampling;
  check(
    "sampling: the prompt and the token limit as the handler wrote them",
    sampling?.maxTokens === 50 && sampling?.messages?.[0]?.content?.text === "Summarize the inbox",
    sampling,
  );
  // Over HTTP the message comes on the session's standalone stream: give it a moment.
  for (let i = 0; i < 20 && !seen.some((s) => s.log); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  check("logging: the handler's message reached the client", seen.some((s) => s.log === "asking the client"), seen);
  await client.close();

  const bare = await connect({});
  const refused = await curious(bare.client);
  for (const [i, capability] of ["elicitation", "sampling", "roots"].entries()) {
    check(
      `without ${capability}: the handler reads which capability is missing`,
      refused[i]?.startsWith("error: ") && refused[i].includes(`did not declare the \`${capability}\` capability`),
      refused,
    );
  }
  check(
    "without capabilities: the client is never asked",
    !bare.seen.some((s) => !s.log),
    bare.seen,
  );
  await bare.client.close();
} catch (error) {
  check("no error", false, String(error?.stack ?? error));
}

finish();
