// Claude Code (the real CLI, pinned in test/clients/package.json) headless
// against the gateway's local engine: "say hi" is one turn of text, and a
// Bash round trip is one call of the tool asked for, then an answer with its
// output.
import t from "tap";
import path from "node:path";
import { ADMIN_KEY, installClients, runCli, sandbox, startGateway, traced, type Gateway, type Run, type Sandbox } from "./harness.js";

/**
 * Everything Claude Code would fetch besides the model (updates, telemetry,
 * error reports, feature flags, plugin and IDE installs, surveys) is off:
 * the CLI has no network but the gateway.
 */
const QUIET = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_UPDATES: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_GROWTHBOOK: "1",
  DISABLE_INSTALLATION_CHECKS: "1",
  CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: "1",
  CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
};

let bin: string;
let gw: Gateway;
t.before(async () => {
  bin = await installClients();
  gw = await startGateway();
});
t.teardown(() => gw?.close());

/** Runs `claude -p ...` with the gateway's key as ANTHROPIC_API_KEY (x-api-key) or ANTHROPIC_AUTH_TOKEN (a Bearer token). */
async function claude(box: Sandbox, key: "ANTHROPIC_API_KEY" | "ANTHROPIC_AUTH_TOKEN", ...args: string[]): Promise<Run> {
  const env = { ...QUIET, ANTHROPIC_BASE_URL: gw.url, [key]: ADMIN_KEY };
  return runCli(path.join(bin, "claude"), ["-p", ...args], box, env);
}

interface Result {
  type: string;
  subtype: string;
  is_error: boolean;
  num_turns: number;
  result: string;
}

t.test("say hi: one turn, text", async (t) => {
  const box = sandbox();
  t.teardown(box.remove);
  const { res, exchanges, calls } = await traced(gw, () => claude(box, "ANTHROPIC_API_KEY", "say hi", "--output-format", "json"));
  t.equal(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout) as Result;
  t.match(out, { type: "result", subtype: "success", is_error: false, num_turns: 1, result: "You said: say hi" });
  t.same(calls, [], "no tool call");
  t.ok(
    exchanges.some((x) => x.url.startsWith("/v1/messages") && x.status === 200),
    "it went through the Messages format",
  );
  t.same(
    exchanges.filter((x) => x.status !== 200).map((x) => `${x.method} ${x.url} ${x.status}`),
    [],
    "every request was served",
  );
});

t.test("say hi, streamed as JSON events, with a Bearer token", async (t) => {
  const box = sandbox();
  t.teardown(box.remove);
  const { res, calls } = await traced(gw, () => claude(box, "ANTHROPIC_AUTH_TOKEN", "say hi", "--output-format", "stream-json", "--verbose"));
  t.equal(res.code, 0, res.stderr);
  const events = res.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; message?: { content: Array<{ type: string; text?: string }> } } & Partial<Result>);
  t.equal(events[0]?.type, "system", "it starts with the init event");
  const blocks = events.filter((e) => e.type === "assistant").flatMap((e) => e.message!.content);
  t.same(
    blocks.filter((b) => b.type === "tool_use"),
    [],
    "no tool_use",
  );
  t.same(
    blocks.filter((b) => b.type === "text").map((b) => b.text),
    ["You said: say hi"],
  );
  t.match(events.at(-1), { type: "result", subtype: "success", num_turns: 1, result: "You said: say hi" });
  t.same(calls, []);
});

t.test("use the Bash tool: one call, then the answer with its output", async (t) => {
  const box = sandbox({ "known-file.txt": "hello\n" });
  t.teardown(box.remove);
  const { res, calls } = await traced(gw, () => claude(box, "ANTHROPIC_API_KEY", "use the Bash tool to run: ls", "--output-format", "json", "--allowedTools", "Bash"));
  t.equal(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout) as Result;
  t.match(out, { subtype: "success", is_error: false, num_turns: 2 });
  t.match(out.result, /known-file\.txt/, "the answer has the command's output");
  t.same(calls, [{ name: "Bash", input: { command: "ls" } }], "exactly one call, with no optional flags");
});
