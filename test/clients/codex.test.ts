// Codex CLI (the real binary, pinned in test/clients/package.json) running
// `codex exec --json` against the gateway's POST /v1/responses: a custom
// provider on the local engine ("say hello" is one turn of text, a command the
// prompt names runs through exec_command, a patch the prompt holds is applied
// through the freeform apply_patch tool), the built-in provider (a WebSocket
// upgrade answered 426, then HTTP in the same turn) and a scripted Anthropic
// upstream behind the gateway. How Codex is configured and what it needs:
// /work/shared/notes/openai-formats.md C.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import t from "tap";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../fixtures/fake-upstream.js";
import { startServer, testChannel, type TestServer } from "../helpers/app.js";
import { ADMIN_KEY, installClients, runCli, sandbox, startGateway, traced, type Exchange, type Gateway, type Run, type Sandbox } from "./harness.js";

/** A model Codex's catalog gives the classic tool set with the freeform (custom) apply_patch tool (C.5); the local engine serves every name. */
const MODEL = "gpt-5.5";

let bin: string;
let gw: Gateway;
t.before(async () => {
  bin = await installClients();
  gw = await startGateway();
});
t.teardown(() => gw?.close());

/**
 * A CODEX_HOME with a config.toml: a custom provider named omnigate at
 * `baseUrl` (C.1; no retries, so that a failure shows at once), or the
 * built-in OpenAI provider moved to `baseUrl` with openai_base_url (C.2).
 */
function codexHome(box: Sandbox, baseUrl: string, provider: "custom" | "builtin"): string {
  const home = path.join(box.home, ".codex");
  mkdirSync(home, { recursive: true });
  const custom = [
    `model = "${MODEL}"`,
    `model_provider = "omnigate"`,
    `[model_providers.omnigate]`,
    `name = "omnigate"`,
    `base_url = "${baseUrl}/v1"`,
    `env_key = "OMNIGATE_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
  ];
  const builtin = [`model = "${MODEL}"`, `openai_base_url = "${baseUrl}/v1"`];
  writeFileSync(path.join(home, "config.toml"), (provider === "custom" ? custom : builtin).join("\n") + "\n");
  return home;
}

/** `codex exec --json` in the sandbox, stdin closed (C.10), killed by the harness after its timeout. */
function codex(box: Sandbox, baseUrl: string, prompt: string, provider: "custom" | "builtin" = "custom"): Promise<Run> {
  const env = { CODEX_HOME: codexHome(box, baseUrl, provider), ...(provider === "custom" ? { OMNIGATE_API_KEY: ADMIN_KEY } : { CODEX_API_KEY: ADMIN_KEY }) };
  return runCli(path.join(bin, "codex"), ["exec", "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "-C", box.cwd, prompt], box, env);
}

interface CodexItem {
  id: string;
  type: string;
  text?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  changes?: Array<{ path: string; kind: string }>;
  message?: string;
}
interface CodexEvent {
  type: string;
  item?: CodexItem;
  usage?: Record<string, number>;
  error?: { message: string };
}

/** The JSONL events Codex printed (lines that are not JSON are left out). */
function events(run: Run): CodexEvent[] {
  return run.stdout.split("\n").flatMap((l) => {
    try {
      return [JSON.parse(l) as CodexEvent];
    } catch {
      return [];
    }
  });
}

/** The items Codex completed, of one type. */
const completed = (run: Run, type: string) => events(run).flatMap((e) => (e.type === "item.completed" && e.item?.type === type ? [e.item] : []));

/** A line for t's messages: the exit code, the events' types and what Codex said on stderr (its errors), clipped. */
const said = (run: Run) =>
  `exit ${run.code}; events ${events(run)
    .map((e) => e.type + (e.item ? `:${e.item.type}` : ""))
    .join(" ")}; ${JSON.stringify(events(run).find((e) => e.type === "turn.failed" || e.item?.type === "error") ?? null)}; stderr ${run.stderr.slice(-1500)}`;

/** Requests that were not answered 200 (the upgrade excepted where a test expects it). */
const unserved = (xs: Exchange[]) => xs.filter((x) => x.status !== 200).map((x) => `${x.method} ${x.url} ${x.status}${x.upgrade ? ` (upgrade ${x.upgrade})` : ""}: ${x.answer.slice(0, 300)}`);

t.test("say hello: one turn, an agent_message", async (t) => {
  const box = sandbox();
  t.teardown(box.remove);
  const { res, exchanges, calls } = await traced(gw, () => codex(box, gw.url, "say hello"));
  t.equal(res.code, 0, said(res));
  const evs = events(res);
  t.equal(evs[0]?.type, "thread.started", "it starts with thread.started");
  t.equal(evs.at(-1)?.type, "turn.completed", `it ends with turn.completed (${said(res)})`);
  t.same(
    completed(res, "agent_message").map((i) => i.text),
    ["You said: say hello"],
    "one agent_message: the local engine's answer",
  );
  const usage = evs.at(-1)?.usage;
  t.ok(usage && usage.input_tokens! > 0 && usage.output_tokens! > 0, `turn.completed carries the usage (${JSON.stringify(usage)})`);
  t.same(calls, [], "no tool call");
  t.ok(
    exchanges.some((x) => x.method === "POST" && x.url === "/v1/responses" && x.status === 200),
    "it went through POST /v1/responses",
  );
  t.same(unserved(exchanges), [], "every request was served");
  t.equal(exchanges.filter((x) => x.url === "/v1/responses").length, 1, "in one request (no retry)");
});

t.test("a command the prompt names runs through exec_command", async (t) => {
  const box = sandbox({ "known-file.txt": "hello\n" });
  t.teardown(box.remove);
  const { res, exchanges, calls } = await traced(gw, () => codex(box, gw.url, "use exec_command to run: ls"));
  t.equal(res.code, 0, said(res));
  t.same(calls, [{ name: "exec_command", input: { cmd: "ls" } }], "exactly one call, exec_command with cmd ls (no optional fields)");
  const commands = completed(res, "command_execution");
  t.equal(commands.length, 1, `Codex ran one command (${said(res)})`);
  t.match(commands[0], { status: "completed", exit_code: 0, command: /\bls$/ }, "ls, exit code 0");
  t.match(commands[0]?.aggregated_output, /known-file\.txt/, "its output lists the sandbox's file");
  const answer = completed(res, "agent_message").map((i) => i.text ?? "");
  t.equal(answer.length, 1, "then one agent_message");
  t.match(answer[0], /^The tool exec_command returned: .*known-file\.txt/s, "that reads the command's output");
  t.equal(events(res).at(-1)?.type, "turn.completed");
  const second = exchanges.filter((x) => x.url === "/v1/responses").at(-1);
  const sent = second ? (JSON.parse(second.body) as { input: Array<{ type?: string; call_id?: string }> }) : undefined;
  const call = sent?.input.find((i) => i.type === "function_call");
  const output = sent?.input.find((i) => i.type === "function_call_output");
  t.ok(call?.call_id && call.call_id === output?.call_id, `the second request sends the call and its output with one call_id (${call?.call_id}, ${output?.call_id})`);
  t.same(unserved(exchanges), [], "every request was served");
});

const PATCH = ["*** Begin Patch", "*** Add File: hello.txt", "+Hello from the patch", "+second line", "*** End Patch"].join("\n");

t.test("a patch in the prompt goes through apply_patch and the file exists", async (t) => {
  const box = sandbox();
  t.teardown(box.remove);
  const prompt = `Apply this patch with apply_patch:\n\n\`\`\`\n${PATCH}\n\`\`\`\n`;
  const { res, exchanges, calls } = await traced(gw, () => codex(box, gw.url, prompt));
  t.equal(res.code, 0, said(res));
  const first = exchanges.find((x) => x.url === "/v1/responses");
  const tools = first ? (JSON.parse(first.body) as { tools?: Array<{ type: string; name?: string }> }).tools : undefined;
  t.ok(
    tools?.some((x) => x.type === "custom" && x.name === "apply_patch"),
    `Codex offered the freeform apply_patch tool for ${MODEL}`,
  );
  t.equal(calls.length, 1, `one call (${JSON.stringify(calls)})`);
  t.equal(calls[0]?.name, "apply_patch");
  t.equal(String(calls[0]?.input ?? "").trim(), PATCH, "as a custom_tool_call whose input is the patch from the fenced block");
  const changes = completed(res, "file_change");
  t.match(changes, [{ status: "completed", changes: [{ kind: "add", path: /hello\.txt$/ }] }], `Codex reports the file added (${said(res)})`);
  const file = path.join(box.cwd, "hello.txt");
  t.ok(existsSync(file), "hello.txt exists in the working folder");
  if (existsSync(file)) t.equal(readFileSync(file, "utf8"), "Hello from the patch\nsecond line\n", "with the patch's lines");
  t.equal(events(res).at(-1)?.type, "turn.completed");
  t.equal(completed(res, "agent_message").length, 1, "and an answer after it");
  const last = exchanges.filter((x) => x.url === "/v1/responses").at(-1);
  t.ok(last && (JSON.parse(last.body) as { input: Array<{ type?: string }> }).input.some((i) => i.type === "custom_tool_call_output"), "the custom_tool_call_output went back");
  t.same(unserved(exchanges), [], "every request was served");
});

t.test("the built-in provider: a WebSocket upgrade answered 426, then HTTP in the same turn", async (t) => {
  const box = sandbox();
  t.teardown(box.remove);
  const { res, exchanges } = await traced(gw, () => codex(box, gw.url, "say hello", "builtin"));
  t.equal(res.code, 0, said(res));
  const upgrades = exchanges.filter((x) => x.upgrade);
  t.equal(upgrades.length, 1, `one upgrade attempt (${upgrades.map((x) => `${x.method} ${x.url} ${x.status}`).join(", ")})`);
  t.match(upgrades[0], { method: "GET", url: "/v1/responses", status: 426, upgrade: /websocket/i }, `GET /v1/responses Upgrade: websocket -> 426 (${upgrades[0]?.answer.slice(0, 200)})`);
  const post = exchanges.findIndex((x) => x.method === "POST" && x.url === "/v1/responses");
  t.ok(post >= 0 && exchanges[post]!.status === 200, "then POST /v1/responses, 200");
  t.same(
    completed(res, "agent_message").map((i) => i.text),
    ["You said: say hello"],
    "the answer",
  );
  t.equal(events(res).at(-1)?.type, "turn.completed");
  t.notMatch(res.stderr, /Reconnecting/, "no reconnect attempts (the slow path of a 404 or a dropped socket)");
});

// ---------------------------------------------------------------------------------------------------
// A scripted Anthropic upstream behind the gateway

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const UPSTREAM_COMMAND = "echo hi-from-upstream";

/** Anthropic's answer to Codex's requests: an exec_command call while there is no tool result, then text quoting the result. */
function anthropicCodex(req: Recorded): Reply {
  if (req.path.endsWith("/count_tokens")) return { json: { input_tokens: 42 } };
  const body = req.body as { model: string; stream?: boolean; messages: Array<{ role: string; content: unknown }> };
  const results = body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; content?: unknown }>).filter((b) => b.type === "tool_result") : []));
  const block = results.length
    ? { type: "text", text: `Done: ${JSON.stringify(results.at(-1)!.content).includes("hi-from-upstream") ? "saw hi-from-upstream" : "no output"}` }
    : { type: "tool_use", id: "toolu_01CODEXexec", name: "exec_command", input: { cmd: UPSTREAM_COMMAND } };
  const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
  const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: "msg_codex", type: "message", role: "assistant", model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage };
  if (!body.stream) return { json: message };
  const start = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = block.type === "tool_use" ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) } : { type: "text_delta", text: (block as { text: string }).text };
  return {
    chunks: [
      sse("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: start }),
      sse("content_block_delta", { type: "content_block_delta", index: 0, delta }),
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 30 } }),
      sse("message_stop", { type: "message_stop" }),
    ],
  };
}

t.test("an Anthropic upstream: one turn with a tool call", async (t) => {
  const fake: FakeUpstream = await startFakeUpstream(anthropicCodex);
  const channel = { ...testChannel("anthropic-main", "anthropic", fake.url, [MODEL]), modelMap: { [MODEL]: "claude-sonnet-4-5-20250929" } };
  const server: TestServer = await startServer({ config: { channels: [channel] } as never });
  t.teardown(async () => {
    await server.close();
    await fake.close();
  });
  const box = sandbox();
  t.teardown(box.remove);
  const res = await codex(box, server.baseUrl, "run the check");
  t.equal(res.code, 0, said(res));
  const requests = fake.requests.filter((r) => r.path.endsWith("/v1/messages"));
  t.equal(requests.length, 2, `two Messages requests upstream (${fake.requests.map((r) => `${r.method} ${r.path}`).join(", ")})`);
  const first = requests[0]?.body as { model?: string; tools?: Array<{ name: string; type?: string }> } | undefined;
  t.equal(first?.model, "claude-sonnet-4-5-20250929", "modelMap applied");
  t.ok(
    first?.tools?.some((x) => x.name === "exec_command"),
    `Codex's exec_command reached Anthropic as a tool (${first?.tools?.map((x) => x.name ?? x.type).join(", ")})`,
  );
  const commands = completed(res, "command_execution");
  t.match(commands, [{ status: "completed", exit_code: 0, aggregated_output: /hi-from-upstream/ }], `Codex ran the upstream's command (${said(res)})`);
  const second = requests[1]?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  const uses = (second?.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; id?: string; tool_use_id?: string }>) : []));
  const use = uses.find((b) => b.type === "tool_use");
  const result = uses.find((b) => b.type === "tool_result");
  t.equal(use?.id, "toolu_01CODEXexec", "the tool_use goes back with Anthropic's id");
  t.equal(result?.tool_use_id, "toolu_01CODEXexec", "and the tool_result answers it");
  t.same(
    completed(res, "agent_message").map((i) => i.text),
    ["Done: saw hi-from-upstream"],
    "the upstream's answer after the tool",
  );
  t.equal(events(res).at(-1)?.type, "turn.completed");
});
