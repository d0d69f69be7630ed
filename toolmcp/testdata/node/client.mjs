// The MCP TypeScript SDK's client drives examples/mcpserver over stdio:
// it lists the tools, makes a good call, a bad call (isError with the retry
// hint), a call with progress, a cancelled slow call (the tool's context
// ends, as the server's stderr shows), and writes answered by the client's
// elicitation handler. TestTypeScriptClient runs it:
//
//	node client.mjs <server binary> [args...]
//
// It prints one line per check and exits 1 on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client.mjs <server command> [args...]");
  process.exit(2);
}

function check(cond, what, detail) {
  if (!cond) {
    console.log(`FAIL ${what}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The elicitation handler answers from a queue and records the questions.
const answers = [];
const questions = [];
const client = new Client({ name: "ts-sdk-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  questions.push(req.params);
  return answers.shift() ?? { action: "cancel" };
});

const transport = new StdioClientTransport({ command, args, stderr: "pipe" });
let stderr = "";
transport.stderr.on("data", (b) => {
  stderr += b.toString();
});
await client.connect(transport);
check(client.getServerVersion()?.name === "toolbelt-mcpserver", "initialize", client.getServerVersion());

// tools/list
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
check(["count_slowly", "read_file", "search", "write_file"].every((n) => byName[n]), "tools/list names", Object.keys(byName));
check(byName.search.annotations?.readOnlyHint === true, "search is read-only", byName.search.annotations);
check(byName.write_file.annotations?.readOnlyHint === false && byName.write_file.annotations?.destructiveHint === false,
  "write_file writes, not destructively", byName.write_file.annotations);
check(byName.search.outputSchema?.type === "object", "search has an outputSchema", byName.search.outputSchema);
check(byName.search.inputSchema.properties.limit.maximum === 50, "search's inputSchema from struct tags", byName.search.inputSchema);

// A good call: the SDK client checks structuredContent against the outputSchema.
let res = await client.callTool({ name: "search", arguments: { query: "println" } });
check(!res.isError && res.structuredContent?.hits?.[0]?.file === "main.go", "good call with structuredContent", res);

// Nothing found: the tool's nil list is null in structuredContent, which the
// outputSchema allows (the SDK client would fail the call otherwise).
res = await client.callTool({ name: "search", arguments: { query: "no such text anywhere" } });
check(!res.isError && res.structuredContent?.hits === null, "no hits, null list passes the outputSchema", res);

// A bad call: Toolbelt's preflight answers with a retry hint, as isError.
res = await client.callTool({ name: "search", arguments: { query: "println", limit: "3" } });
check(res.isError === true && text(res).includes("/limit") && text(res).includes("Fix the arguments"), "bad call gets the retry hint", res);

// Progress.
const progress = [];
res = await client.callTool({ name: "count_slowly", arguments: { to: 3, delay_ms: 20 } }, undefined, {
  onprogress: (p) => progress.push(p),
});
check(text(res) === "counted to 3", "slow call finishes", res);
// The server sends all three before the result, but this SDK version may
// drop the one read together with the response (typescript-sdk#2580).
check(progress.length >= 2 && progress.every((p, i) => p.progress === i + 1 && p.total === 3), "progress notifications", progress);

// Cancel a slow call once it has made progress; the tool's context ends.
const abort = new AbortController();
let cancelled;
try {
  await client.callTool({ name: "count_slowly", arguments: { to: 600, delay_ms: 50 } }, undefined, {
    signal: abort.signal,
    onprogress: () => abort.abort("enough"),
  });
  cancelled = false;
} catch (e) {
  cancelled = true;
}
check(cancelled, "the cancelled call rejects");
for (let i = 0; i < 200 && !stderr.includes("count_slowly: stopped"); i++) {
  await new Promise((r) => setTimeout(r, 50));
}
check(/count_slowly: stopped at \d+: mcp: the client cancelled the request/.test(stderr), "the tool's context ended with the client's cancel", stderr);

// Approval by elicitation: allowed once.
answers.push({ action: "accept", content: { decision: "allow_once" } });
res = await client.callTool({ name: "write_file", arguments: { path: "notes.md", content: "hello" } });
check(!res.isError && text(res) === "wrote 5 bytes to notes.md", "write allowed by the user", res);
const q = questions.at(-1);
check(q?.message.includes("Write notes.md") && q.message.includes("+ hello") && q.requestedSchema.properties.decision.enum.includes("allow_once"),
  "the question shows the diff and the choices", q);
res = await client.callTool({ name: "read_file", arguments: { path: "notes.md" } });
check(text(res) === "hello", "the write happened", res);

// Denied, with a reason the model reads.
answers.push({ action: "accept", content: { decision: "deny", reason: "not that file" } });
res = await client.callTool({ name: "write_file", arguments: { path: "main.go", content: "oops" } });
check(res.isError === true && text(res).includes("not that file"), "write denied by the user", res);
res = await client.callTool({ name: "read_file", arguments: { path: "main.go" } });
check(text(res).includes("println"), "the denied write did not happen", res);

// Declined.
answers.push({ action: "decline" });
res = await client.callTool({ name: "write_file", arguments: { path: "main.go", content: "oops" } });
check(res.isError === true && text(res).includes("declined"), "write declined", res);

await client.close();
console.log("PASS");
