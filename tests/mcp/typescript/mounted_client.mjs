// The official MCP TypeScript SDK as the client of an rmcp server with a toolset set
// mounted in it (tests/src/desk.rs, served by the mcp_mounted binary over stdio):
// everything is listed, the rmcp tool, prompt and resource are answered by rmcp without
// the human, and only the set's tool above the autonomy is put to the human, by
// elicitation, and runs once when approved.
//
// node mounted_client.mjs <mcp_mounted binary | http://.../mcp>: over stdio (the client
// starts the binary) or streamable HTTP (the server already runs there); prints one line a
// check and "N passed, M failed"; exits non-zero when any failed.

import { check, finish, serverArgument } from "./checks.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = serverArgument("mounted_client.mjs");

// What the human answers the next elicitation, and every elicitation asked.
let answer = "accept";
const asked = [];

const client = new Client(
  { name: "toolset-mounted-test", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return answer === "accept"
    ? { action: "accept", content: { approve: true } }
    : { action: "decline" };
});

const transport = server.startsWith("http://")
  ? new StreamableHTTPClientTransport(new URL(server))
  : new StdioClientTransport({ command: server, stderr: "inherit" });
const timeout = { timeout: 20000 };
await client.connect(transport, timeout);

const text = (result) => (result.content ?? []).map((part) => part.text ?? "").join("");
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, timeout);

try {
  const capabilities = client.getServerCapabilities() ?? {};
  check(
    "initialize: the host's capabilities, with the set's tools (listChanged)",
    capabilities.prompts && capabilities.resources && capabilities.tools?.listChanged === true,
    capabilities,
  );

  const names = (await client.listTools(undefined, timeout)).tools.map((tool) => tool.name);
  const expected = ["echo", "set_due_date", "search", "create-item", "now", "send_reply"];
  check(
    "tools/list: the host's tool first, then the set's, each once",
    JSON.stringify(names) === JSON.stringify(expected),
    names,
  );

  const prompts = (await client.listPrompts(undefined, timeout)).prompts.map((p) => p.name);
  check("prompts/list: the host's prompt", JSON.stringify(prompts) === '["greeting"]', prompts);
  const prompt = await client.getPrompt({ name: "greeting", arguments: { name: "Ada" } }, timeout);
  check(
    "prompts/get: answered by the host, untouched",
    prompt.messages.length === 1 && prompt.messages[0].content.text === "Say hello to Ada.",
    prompt,
  );

  const resources = (await client.listResources(undefined, timeout)).resources.map((r) => r.uri);
  check("resources/list: the host's resource", JSON.stringify(resources) === '["desk://readme"]', resources);
  const read = await client.readResource({ uri: "desk://readme" }, timeout);
  check(
    "resources/read: answered by the host",
    read.contents[0]?.text === "The desk answers echo itself; the inbox tools are toolset's.",
    read,
  );

  const echoed = await call("echo", { text: "hi" });
  check(
    "the host's tool runs untouched, nobody asked",
    text(echoed) === "echo: hi" && !echoed.isError && asked.length === 0,
    { echoed, asked },
  );

  const found = await call("search", { query: "Invoice" });
  check(
    "the set's read-only tool runs through the gate without the human",
    !found.isError && text(found).includes("Invoice 88 overdue") && asked.length === 0,
    { found, asked },
  );

  const refused = await call("create-item", { subjekt: "typo" });
  check(
    "the set's gate refuses arguments the schema does not allow, before any human",
    refused.isError === true && text(refused).includes("subjekt") && asked.length === 0,
    { refused, asked },
  );

  answer = "accept";
  const created = await call("create-item", { subject: "Call the bank" });
  check(
    "the set's reversible tool is put to the human once, and runs on the approval",
    !created.isError && text(created) === "created item 2" && asked.length === 1,
    { created, asked },
  );
  check(
    "the human was shown the set's tool and its exact arguments",
    asked[0]?.includes("create-item") && asked[0]?.includes("Call the bank"),
    asked,
  );

  const once = await call("search", { query: "Call the bank" });
  check(
    "the approved call ran exactly once",
    (once.structuredContent?.result ?? JSON.parse(text(once))).length === 1,
    once,
  );

  answer = "decline";
  const declined = await call("create-item", { subject: "Wire the money" });
  const never = await call("search", { query: "Wire the money" });
  check(
    "a declined call does not run",
    declined.isError === true &&
      text(declined).startsWith("Declined by the user") &&
      asked.length === 2 &&
      (never.structuredContent?.result ?? JSON.parse(text(never))).length === 0,
    { declined, never, asked },
  );

  let unknown;
  try {
    unknown = await call("shred", {});
  } catch (error) {
    unknown = { thrown: String(error) };
  }
  check(
    "a name neither has is the host's to answer (rmcp's router), and nobody is asked",
    JSON.stringify(unknown).includes("-32602: tool not found") && asked.length === 2,
    unknown,
  );
} catch (error) {
  check("the session completes", false, String(error?.stack ?? error));
} finally {
  await client.close();
}

finish();
