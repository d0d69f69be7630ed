// The tasks extension's TypeScript client (@modelcontextprotocol/ext-tasks,
// on the MCP TypeScript SDK v2 client) drives tasks that toolmcp serves over
// streamable HTTP at protocol 2026-07-28 (SEP-2663): tools/call answered
// with a task handle, tasks/get polled to the task's end, tasks/cancel, and
// an approval the task waits for (input_required) answered through
// tasks/update. TestTypeScriptTasksClient starts the server and checks its
// side (how many times each tool ran, the cancelled tool's cause):
//
//	node client_tasks.mjs <endpoint URL>
//
// The SDK client cannot carry a 2026-07-28 task's wire shapes (it refuses a
// CreateTaskResult and tasks/*), so ext-tasks has the host send tools/call
// and tasks/* itself (rawDispatch, its documented adapter): one POST per
// request, with the standard headers SEP-2243 and SEP-2663 require
// (Mcp-Method; Mcp-Name, which ext-tasks sets to the taskId on tasks/*).
// Everything else — when to poll, what to answer, when it ended — is
// ext-tasks'.
//
// It prints one line per check and exits 1 on the first failure.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";

const [endpoint] = process.argv.slice(2);
if (!endpoint) {
  console.error("usage: node client_tasks.mjs <endpoint URL>");
  process.exit(2);
}

function check(cond, what, detail) {
  if (!cond) {
    console.log(`FAIL ${what}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

const protocolVersion = "2026-07-28";
const clientInfo = { name: "ts-ext-tasks-client", version: "1.0.0" };
const clientCapabilities = { elicitation: {} };

// rawDispatch: one JSON-RPC request, one POST; the answer is JSON or an SSE
// stream whose message of this id is the response.
let nextID = 1;
const sent = [];
async function rawDispatch(request, options = {}) {
  const id = nextID++;
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": protocolVersion,
    "Mcp-Method": request.method,
    ...(request.method === "tools/call" ? { "Mcp-Name": request.params.name } : {}),
    ...(options.context?.headers ?? {}),
  };
  sent.push({ method: request.method, headers });
  const res = await fetch(endpoint, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, ...request }),
    signal: options.signal,
  });
  const body = await res.text();
  let messages = [];
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (data) messages.push(JSON.parse(data));
    }
  } else if (body) {
    messages = [JSON.parse(body)];
  }
  const reply = messages.find((m) => m.id === id) ?? messages.find((m) => m.id === null && m.error);
  if (!reply) throw new Error(`no response to ${request.method} (HTTP ${res.status}): ${body.slice(0, 300)}`);
  return reply.error ? { kind: "error", error: reply.error } : { kind: "result", result: reply.result };
}

// The user: answers each approval form from a queue, and records it. An
// answer marked twice is also sent at once by hand, so that two
// tasks/update with it race.
const answers = [];
const questions = [];
const duplicates = [];
async function onInputRequest(request, context) {
  questions.push({ request, context });
  const { twice, ...answer } = answers.shift() ?? { action: "cancel" };
  if (twice) duplicates.push(session.task(context.taskId).update({ [context.inputId]: answer }));
  return answer;
}

const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: protocolVersion } } });
await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
check(client.getNegotiatedProtocolVersion() === protocolVersion, "negotiated 2026-07-28", client.getNegotiatedProtocolVersion());
const session = createTaskSessionFromClient(client, {
  endpointId: "toolmcp-test",
  rawDispatch,
  v2RequestFraming: { protocolVersion, clientInfo, clientCapabilities },
  onInputRequest,
  onError: (e) => console.log(`note ${e.message}`),
});
check(session.capabilities.execution && session.capabilities.cancellation && session.capabilities.inputResponses,
  "the server declares the tasks extension", session.capabilities);

const text = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const status = async (taskId) => (await session.task(taskId).snapshot()).status;

// 1. A task to its end: tools/call answers with a task handle, tasks/get is
// polled until it completes, with the tool's result inlined.
let execution = await session.callTool("build", { target: "app" }, { task: { preference: "require" } });
check(execution.kind === "task" && typeof execution.handle.taskId === "string", "tools/call answers with a task handle", execution.kind);
const seen = [];
let settled = await execution.settle({ onEvent: (e) => e.type === "task" && seen.push(e.task.status) });
check(settled.outcome.status === "completed", "the task completes", settled.outcome);
check(text(resultFromTaskOutcome(settled.outcome)) === "built app", "its result is the tool's", settled.outcome);
check(seen.includes("working") && seen.at(-1) === "completed", "polled through working to completed", seen);
const polls = sent.filter((s) => s.method === "tasks/get");
check(polls.length > 0 && polls.every((s) => s.headers["Mcp-Name"] === execution.handle.taskId), "every tasks/get names its task in Mcp-Name", polls.length);

// 2. Cancel a task that runs until it is cancelled.
execution = await session.callTool("forever", {});
check(execution.kind === "task", "forever runs as a task", execution.kind);
const foreverID = execution.handle.taskId;
await new Promise((r) => setTimeout(r, 200));
check(await status(foreverID) === "working", "it is working");
await execution.cancel();
check((await execution.result()).status === "cancelled", "tasks/cancel is acknowledged, the execution ends cancelled");
let st;
for (let i = 0; i < 200 && (st = await status(foreverID)) !== "cancelled"; i++) await new Promise((r) => setTimeout(r, 25));
check(st === "cancelled", "the server's task is cancelled", st);

// 3. An approval the task waits for, answered through tasks/update: allowed
// once, by two answers that race.
answers.push({ action: "accept", content: { decision: "allow_once" }, twice: true });
execution = await session.callTool("deploy", { env: "prod" });
check(execution.kind === "task", "deploy runs as a task", execution.kind);
const deployID = execution.handle.taskId;
settled = await execution.settle();
check(settled.outcome.status === "completed" && text(resultFromTaskOutcome(settled.outcome)) === "deployed prod", "deploy ran once allowed", settled.outcome);
check(questions.length === 1, "asked once", questions.length);
const q = questions[0];
check(q.request.kind === "elicitation" && q.context.delivery === "task-update" && q.context.taskId === deployID,
  "the approval came as the task's input request", q.context);
check(q.request.params.message.includes("deploy") && q.request.params.requestedSchema.properties.decision.enum.includes("allow_once"),
  "the question shows the call and the choices", q.request.params);
check(sent.filter((s) => s.method === "tasks/update" && s.headers["Mcp-Name"] === deployID).length === 2, "answered twice through tasks/update");
await Promise.all(duplicates);
console.log("ok   the racing answer was acknowledged");

// Another answer to the same question, once the call ran: acknowledged
// (SEP-2663: an answer to what the task no longer waits for is ignored),
// and the call does not run again (the server counts).
await session.task(deployID).update({ [q.context.inputId]: { action: "accept", content: { decision: "allow_once" } } });
const after = await session.task(deployID).snapshot();
check(after.status === "completed", "a second answer changes nothing", after.status);

// 4. Denied: the task completes with the denial the model reads.
answers.push({ action: "accept", content: { decision: "deny", reason: "not today" } });
execution = await session.callTool("deploy", { env: "staging" });
settled = await execution.settle();
const denied = resultFromTaskOutcome(settled.outcome);
check(denied.isError === true && text(denied).includes("not today"), "deploy denied by the user", denied);

await session.close();
await client.close();
console.log("PASS");
process.exit(0);
