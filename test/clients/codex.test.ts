// Codex CLI (the real binary, pinned in test/clients/package.json) running
// `codex exec --json` against the gateway's POST /v1/responses: a custom
// provider on the local engine ("say hello" is one turn of text, a command the
// prompt names runs through exec_command, a patch the prompt holds is applied
// through the freeform apply_patch tool), the built-in provider (a WebSocket
// upgrade answered 426, then HTTP in the same turn), and scripted Anthropic and
// Gemini upstreams behind the gateway (a plain answer, exec_command and
// apply_patch on each). How Codex is configured and what it needs:
// /work/shared/notes/openai-formats.md C.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import t from "tap";
import { ADMIN_KEY, installClients, runCli, sandbox, startGateway, traced, type Exchange, type Gateway, type Run, type Sandbox } from "./harness.js";
import { heard, scripted, startFakeUpstreams, toolParameters, UPSTREAM_MODEL, type Brain } from "./fakes.js";

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
// Scripted Anthropic and Gemini upstreams behind the gateway (fakes.ts): a plain answer, a command run
// through exec_command, a file added through apply_patch (a custom tool, which reaches them as a
// function with one string parameter, "input"); the three runs of an upstream at once, told apart
// by their prompts

const UPSTREAM_COMMAND = "echo hi-from-upstream";
const PROMPTS = { plain: "say hello", shell: "run the check", patch: "add the file" };

/** The fakes' script for Codex: the prompt picks the tool, a tool result is read back by the name of the call it answers. */
const codexBrain: Brain = (ask) => {
  const r = ask.results.at(-1);
  if (r) return { text: `${ask.vendor} read ${r.name ?? "an unlinked result"}` };
  if (ask.lastUser === PROMPTS.shell) return { call: { name: "exec_command", args: { cmd: UPSTREAM_COMMAND } } };
  if (ask.lastUser === PROMPTS.patch) return { call: { name: "apply_patch", args: { input: PATCH } } };
  return scripted(ask);
};

/** The emulated apply_patch: one required string parameter, "input" (src/providers/shared/custom-tools.ts). */
const EMULATED = { type: /^object$/i, properties: { input: { type: /^string$/i } }, required: ["input"] };

for (const vendor of ["anthropic", "gemini"] as const) {
  t.test(`a fake ${vendor} upstream: a plain answer, exec_command, apply_patch`, async (t) => {
    const ups = await startFakeUpstreams({ [vendor]: [MODEL] }, codexBrain);
    t.teardown(() => ups.close());
    const boxes = { plain: sandbox(), shell: sandbox(), patch: sandbox() };
    t.teardown(() => Object.values(boxes).forEach((b) => b.remove()));
    const [plain, shell, patch] = await Promise.all([codex(boxes.plain, ups.url, PROMPTS.plain), codex(boxes.shell, ups.url, PROMPTS.shell), codex(boxes.patch, ups.url, PROMPTS.patch)]);
    /** The upstream requests of one run. */
    const asksOf = (k: keyof typeof PROMPTS) => ups.asks(vendor).filter((a) => a.lastUser === PROMPTS[k]);

    t.test("a plain answer", async (t) => {
      t.equal(plain.code, 0, said(plain));
      const asks = asksOf("plain");
      t.equal(asks.length, 1, "one upstream request");
      t.equal(asks[0]?.model, UPSTREAM_MODEL[vendor], "modelMap applied");
      t.ok(asks[0]?.system.length, "Codex's developer instructions as the system prompt");
      t.same(
        completed(plain, "agent_message").map((i) => i.text),
        [heard(vendor, PROMPTS.plain)],
        "the upstream's answer",
      );
      t.equal(events(plain).at(-1)?.type, "turn.completed", "the turn completes");
    });

    t.test("a command the upstream calls exec_command for", async (t) => {
      t.equal(shell.code, 0, said(shell));
      const asks = asksOf("shell");
      t.equal(asks.length, 2, "two upstream requests");
      t.ok(asks[0]?.tools.includes("exec_command"), `Codex's exec_command reached ${vendor} as a function (${asks[0]?.tools.join(", ")})`);
      t.match(toolParameters(asks[0]!, "exec_command"), { properties: { cmd: { type: /^string$/i } } }, "with its parameters");
      t.match(completed(shell, "command_execution"), [{ status: "completed", exit_code: 0, aggregated_output: /hi-from-upstream/ }], `Codex ran the upstream's command (${said(shell)})`);
      const [call] = asks[1]?.calls ?? [];
      t.match(call, { name: "exec_command", args: { cmd: UPSTREAM_COMMAND } }, "the call went back upstream");
      if (vendor === "anthropic") t.match(call?.id, /^toolu_fake_\d+$/, "with Anthropic's id");
      t.match(
        asks[1]?.results,
        [{ id: call?.id, name: "exec_command", output: /hi-from-upstream/ }],
        `and the command's output, linked to it by id (${vendor === "gemini" ? "a functionResponse" : "a tool_result"})`,
      );
      t.same(
        completed(shell, "agent_message").map((i) => i.text),
        [`${vendor} read exec_command`],
        "the upstream's answer after the tool",
      );
      t.equal(events(shell).at(-1)?.type, "turn.completed", "the turn completes");
    });

    t.test("a file the upstream adds through apply_patch", async (t) => {
      t.equal(patch.code, 0, said(patch));
      const asks = asksOf("patch");
      t.equal(asks.length, 2, "two upstream requests");
      t.match(toolParameters(asks[0]!, "apply_patch"), EMULATED, `the freeform apply_patch reached ${vendor} as a function of one string, "input"`);
      t.match(completed(patch, "file_change"), [{ status: "completed", changes: [{ kind: "add", path: /hello\.txt$/ }] }], `Codex reports the file added (${said(patch)})`);
      const file = path.join(boxes.patch.cwd, "hello.txt");
      t.equal(existsSync(file) ? readFileSync(file, "utf8") : "(no file)", "Hello from the patch\nsecond line\n", "hello.txt exists, with the patch's lines");
      const [call] = asks[1]?.calls ?? [];
      t.match(call, { name: "apply_patch", args: { input: PATCH } }, "the call went back upstream as the emulated function's arguments");
      t.match(asks[1]?.results, [{ id: call?.id, name: "apply_patch", output: /hello\.txt/ }], "and Codex's custom_tool_call_output as its result, linked to it by id");
      t.same(
        completed(patch, "agent_message").map((i) => i.text),
        [`${vendor} read apply_patch`],
        "the upstream's answer after the tool",
      );
      t.equal(events(patch).at(-1)?.type, "turn.completed", "the turn completes");
    });
  });
}
