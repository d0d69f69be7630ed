// The MCP TypeScript SDK v2 client (@modelcontextprotocol/client) drives
// examples/mcpserver over streamable HTTP at protocol 2026-07-28, where
// every request stands alone (SEP-2575): it starts the server on a free
// port, lists the tools, makes a good call, a bad call (isError with the
// retry hint), a call with progress, a cancelled slow call (the client
// aborts the request; the tool's context ends, as the server's stderr
// shows), and writes the user approves, denies or declines, asked in the
// call's result and answered in its retry (SEP-2322 input requests,
// through the client's elicitation handler). TestTypeScriptClientHTTP
// runs it:
//
//	node client_http.mjs <server binary>
//
// It prints one line per check and exits 1 on the first failure.
import { spawn } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [command] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client_http.mjs <server binary>");
  process.exit(2);
}

const server = spawn(command, ["-http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
let stderr = "";
server.stderr.on("data", (b) => {
  stderr += b.toString();
});
const stop = () => server.kill("SIGTERM");
process.on("exit", stop);

function check(cond, what, detail) {
  if (!cond) {
    console.log(`FAIL ${what}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

const waitFor = async (re, what) => {
  for (let i = 0; i < 400; i++) {
    const m = stderr.match(re);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 25));
  }
  check(false, what, stderr);
};

const url = (await waitFor(/streamable HTTP on (http:\/\/\S+)/, "the server starts"))[1];
const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The elicitation handler answers from a queue and records the questions;
// at 2026-07-28 the client calls it for the input requests of a result.
const answers = [];
const questions = [];
const client = new Client(
  { name: "ts-sdk-v2-client", version: "1.0.0" },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
client.setRequestHandler("elicitation/create", async (req) => {
  questions.push(req.params);
  return answers.shift() ?? { action: "cancel" };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
check(client.getNegotiatedProtocolVersion() === "2026-07-28", "negotiated 2026-07-28", client.getNegotiatedProtocolVersion());
check(client.getServerVersion()?.name === "toolbelt-mcpserver", "server/discover names the server", client.getServerVersion());

// tools/list
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
check(["count_slowly", "read_file", "search", "write_file"].every((n) => byName[n]), "tools/list names", Object.keys(byName));
check(byName.search.annotations?.readOnlyHint === true, "search is read-only", byName.search.annotations);
check(byName.search.outputSchema?.type === "object", "search has an outputSchema", byName.search.outputSchema);

// A good call: the client checks structuredContent against the outputSchema.
let res = await client.callTool({ name: "search", arguments: { query: "println" } });
check(!res.isError && res.structuredContent?.hits?.[0]?.file === "main.go", "good call with structuredContent", res);

// A bad call: Toolbelt's preflight answers with a retry hint, as isError.
res = await client.callTool({ name: "search", arguments: { query: "println", limit: "3" } });
check(res.isError === true && text(res).includes("/limit") && text(res).includes("Fix the arguments"), "bad call gets the retry hint", res);

// Progress, on the call's own response stream.
const progress = [];
res = await client.callTool({ name: "count_slowly", arguments: { to: 3, delay_ms: 20 } }, {
  onprogress: (p) => progress.push(p),
});
check(text(res) === "counted to 3", "slow call finishes", res);
check(progress.length >= 2 && progress.every((p, i) => p.progress === i + 1 && p.total === 3), "progress notifications", progress);

// Cancel a slow call once it has made progress: the client aborts the
// request, and the tool's context ends with the client's cancel as cause.
const abort = new AbortController();
let cancelled;
try {
  await client.callTool({ name: "count_slowly", arguments: { to: 600, delay_ms: 50 } }, {
    signal: abort.signal,
    onprogress: () => abort.abort("enough"),
  });
  cancelled = false;
} catch (e) {
  cancelled = true;
}
check(cancelled, "the cancelled call rejects");
await waitFor(/count_slowly: stopped at \d+: mcp: the client cancelled the request/, "the tool's context ended with the client's cancel");
console.log("ok   the tool's context ended with the client's cancel");

// Approval, asked in the call's result and answered in its retry: allowed once.
answers.push({ action: "accept", content: { decision: "allow_once" } });
res = await client.callTool({ name: "write_file", arguments: { path: "notes.md", content: "hello" } });
check(!res.isError && text(res) === "wrote 5 bytes to notes.md", "write allowed by the user", res);
const q = questions.at(-1);
check(questions.length === 1 && q?.message.includes("Write notes.md") && q.message.includes("+ hello") &&
  q.requestedSchema.properties.decision.enum.includes("allow_once"), "the question shows the diff and the choices", q);
check(!q.requestedSchema.properties.decision.enum.includes("allow_always"), "no 'allow always' without a session", q.requestedSchema);
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
check(questions.length === 3, "asked once per write", questions.length);

await client.close();
console.log("PASS");
process.exit(0);
