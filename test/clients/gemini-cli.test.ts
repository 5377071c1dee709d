// Gemini CLI (the real CLI, pinned in test/clients/package.json) headless
// against the gateway's local engine: "say hi" is one text answer, and a
// list_directory round trip is one call, then an answer with the listing.
import t from "tap";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ADMIN_KEY, installClients, runCli, sandbox, startGateway, traced, type Gateway, type Run, type Sandbox } from "./harness.js";

/**
 * Settings (~/.gemini/settings.json): API-key auth (the gateway's key), and
 * no auto-update, update notices, usage statistics or telemetry.
 */
const SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/**
 * The temporary folder is trusted (headless runs refuse untrusted ones), the
 * CLI does not relaunch itself in a child process, telemetry is off, no
 * browser is opened and no sandbox container is started.
 */
const QUIET = { GEMINI_CLI_TRUST_WORKSPACE: "true", GEMINI_CLI_NO_RELAUNCH: "true", GEMINI_TELEMETRY_ENABLED: "false", NO_BROWSER: "true", GEMINI_SANDBOX: "false" };

let bin: string;
let gw: Gateway;
t.before(async () => {
  bin = await installClients();
  gw = await startGateway();
});
t.teardown(() => gw?.close());

async function gemini(box: Sandbox, prompt: string): Promise<Run> {
  mkdirSync(path.join(box.home, ".gemini"), { recursive: true });
  writeFileSync(path.join(box.home, ".gemini", "settings.json"), JSON.stringify(SETTINGS));
  const env = { ...QUIET, GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: ADMIN_KEY };
  // bin/gemini is a node script; run it with this node, as npx would.
  return runCli(process.execPath, [path.join(bin, "gemini"), "-p", prompt, "--output-format", "json"], box, env);
}

interface Output {
  response: string;
  error?: unknown;
  stats: { tools: { totalCalls: number; byName: Record<string, unknown> } };
}

/** The JSON document on stdout (the CLI may print warnings before it). */
function output(res: Run): Output {
  return JSON.parse(res.stdout.slice(res.stdout.indexOf("{"))) as Output;
}

t.test("say hi: one text answer", async (t) => {
  const box = sandbox({ "known-file.txt": "hello\n" });
  t.teardown(box.remove);
  const { res, exchanges, calls } = await traced(gw, () => gemini(box, "say hi"));
  t.equal(res.code, 0, res.stderr);
  const out = output(res);
  t.equal(out.response, "You said: say hi");
  t.equal(out.error, undefined);
  t.equal(out.stats.tools.totalCalls, 0);
  t.same(calls, [], "no function call");
  t.ok(
    exchanges.some((x) => x.url.includes(":streamGenerateContent") && x.status === 200),
    "it went through the generate-content format",
  );
  t.same(
    exchanges.filter((x) => x.status !== 200).map((x) => `${x.method} ${x.url} ${x.status}`),
    [],
    "every request was served",
  );
});

t.test("use the list_directory tool: one call, then the answer with the listing", async (t) => {
  const box = sandbox({ "known-file.txt": "hello\n" });
  t.teardown(box.remove);
  const { res, calls } = await traced(gw, () => gemini(box, "use the list_directory tool to list the current directory"));
  t.equal(res.code, 0, res.stderr);
  const out = output(res);
  t.match(out.response, /known-file\.txt/, "the answer has the listing");
  t.equal(out.stats.tools.totalCalls, 1);
  t.same(calls, [{ name: "list_directory", input: { dir_path: "." } }], "exactly one call, with no optional arguments");
});
