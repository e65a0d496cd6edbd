// An MCP client on the official TypeScript SDK, driven by the e2e tests.
//
//   node sdk-client.mjs '<request JSON>'
//
// The request: {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"}
//          or  {"transport": "stdio", "command": "/path/to/gemini-search-mcp", "args": []}
// plus "tool" (default "search"), "arguments" ({"query": ...}), and "cancelOnStdin": true to abort
// the call when a line arrives on stdin (the SDK then sends notifications/cancelled) and to keep the session
// open until stdin closes.
// "progress": true sends a progressToken with the call and records the notifications/progress that arrive.
// "defaultTimeout": true leaves the SDK's own request timeout (60 s) in force instead of 10 minutes.
// "untilDone": true, when the tool answers status running, calls research_result with its research_id until the
// research ends, and records each answer's status and time: "answers": [{"status", "atMs"}].
// "task": true calls the tool as an MCP task (tools/call with "task", tasks/get until the task ends, then
// tasks/result, all done by the SDK's callToolStream) and records the task's statuses as the client saw them.
// "elicit": "accept", "decline" or "cancel" declares the elicitation capability and answers each elicitation/create
// so ("accept" with the form's fields: {"approve": true}, or "elicitContent" when given), recording each request's
// params: "elicitations": [{"message", "requestedSchema"}].
// In stdio mode the server gets this process's environment.
//
// Prints one JSON line on stdout: {"server", "tools", "result"} or {"server", "tools", "cancelled", "error"},
// plus "progress": [{"progress", "total", "message"}] and "task": {"created", "statuses": [{"status",
// "statusMessage", "atMs"}], "createdAtMs", "resultAtMs"} when asked for (times in ms since the call).
// The e2e tests copy this file next to a node_modules link to the pinned packages, so that the imports
// below resolve from the project cache without a network.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createInterface } from "node:readline";

const req = JSON.parse(process.argv[2] ?? "{}");

let transport;
if (req.transport === "http") {
  transport = new StreamableHTTPClientTransport(new URL(req.url));
} else if (req.transport === "stdio") {
  transport = new StdioClientTransport({
    command: req.command,
    args: req.args ?? [],
    env: { ...process.env },
    stderr: "inherit",
  });
} else {
  console.error(`unknown transport ${JSON.stringify(req.transport)}`);
  process.exit(2);
}

const client = new Client({ name: "e2e-sdk-client", version: "1.0.0" },
  req.elicit ? { capabilities: { elicitation: {} } } : {});
const elicitations = [];
if (req.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push({ message: request.params.message, requestedSchema: request.params.requestedSchema });
    if (req.elicit === "accept") {
      return { action: "accept", content: req.elicitContent ?? { approve: true } };
    }
    return { action: req.elicit };
  });
}
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: (await client.listTools()).tools.map((t) => t.name) };
if (req.elicit) {
  out.elicitations = elicitations;
}

const abort = new AbortController();
let stdinClosed = Promise.resolve();
if (req.cancelOnStdin) {
  const lines = createInterface({ input: process.stdin });
  lines.once("line", () => abort.abort("cancelled by the e2e test"));
  stdinClosed = new Promise((resolve) => lines.once("close", resolve));
}

const params = { name: req.tool ?? "search", arguments: req.arguments ?? {} };
const options = { signal: abort.signal };
if (!req.defaultTimeout) {
  options.timeout = 10 * 60 * 1000;
}
if (req.progress) {
  out.progress = [];
  options.onprogress = ({ progress, total, message }) => out.progress.push({ progress, total, message });
}
try {
  if (req.task) {
    out.task = { statuses: [] };
    const began = Date.now();
    for await (const msg of client.experimental.tasks.callToolStream(params, CallToolResultSchema, {
      ...options,
      task: { ttl: 10 * 60 * 1000 },
    })) {
      const atMs = Date.now() - began;
      if (msg.type === "taskCreated") {
        out.task.created = msg.task;
        out.task.createdAtMs = atMs;
      } else if (msg.type === "taskStatus") {
        out.task.statuses.push({ status: msg.task.status, statusMessage: msg.task.statusMessage, atMs });
      } else if (msg.type === "result") {
        out.result = msg.result;
        out.task.resultAtMs = atMs;
      } else if (msg.type === "error") {
        throw msg.error;
      }
    }
  } else {
    const began = Date.now();
    out.result = await client.callTool(params, CallToolResultSchema, options);
    if (req.untilDone) {
      out.answers = [{ status: out.result.structuredContent?.status ?? "done", atMs: Date.now() - began }];
      while (out.result.structuredContent?.status === "running") {
        const wait = { name: "research_result", arguments: { research_id: out.result.structuredContent.research_id } };
        out.result = await client.callTool(wait, CallToolResultSchema, options);
        out.answers.push({ status: out.result.structuredContent?.status ?? "done", atMs: Date.now() - began });
      }
    }
  }
} catch (err) {
  out.cancelled = abort.signal.aborted;
  out.error = String(err?.message ?? err);
}
process.stdout.write(JSON.stringify(out) + "\n");
// With cancelOnStdin the session stays open until stdin closes, so that the test sees what the cancellation
// alone does, before any disconnect.
await stdinClosed;
await client.close();
process.exit(0);
