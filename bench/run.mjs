// npm run bench: measures, side by side in one run on loopback, the fake
// upstream hit directly, a bare fastify pass-through proxy, and omnigate
// translating between formats. Load comes from autocannon in its own process.
// Processes are pinned: upstream and load generator on cpu0, the system under
// test on cpu1. Bounded in time; stops by itself.
import { spawn, execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { describeMachine, readMachine } from "./machine.mjs";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
/** The shortest warm-up (s) of a target before a scenario's first round; the warm-up then runs until the target is steady (see warmUp). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4);
/** The longest warm-up (s): a target whose CPU per request keeps moving is measured anyway after this. */
const WARMUP_MAX = Number(process.env.BENCH_WARMUP_MAX ?? 40);
const WARMUP_SLICE = 2;
/** Alternating rounds of bare proxy and omnigate per chat scenario: medians are reported, so that a slow spell of the machine hits both. */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 6)));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Side-by-side rounds per chat scenario: proxy and omnigate loaded at the same time, so that both see the same machine (0: skip). */
const SIDE_ROUNDS = Math.max(0, Math.floor(Number(process.env.BENCH_SIDE_BY_SIDE ?? 6)));
const SOAK = Number(process.env.BENCH_SOAK_REQUESTS ?? 150_000);
/** Share of omnigate's saturated rate at which proxy and omnigate are both driven to compare latency at equal load (0: skip). */
const EQUAL_LOAD = Number(process.env.BENCH_EQUAL_LOAD ?? 0.5);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
/** BENCH_SAVE=0: print the table only (for iterating); BENCH_PROF_DIR: the gateway writes a --cpu-prof there, the bare proxy one in its proxy/ folder (bench/profile.mjs reads them). */
const SAVE = process.env.BENCH_SAVE !== "0";
const PROF_DIR = process.env.BENCH_PROF_DIR ? path.resolve(process.env.BENCH_PROF_DIR) : undefined;
const KEY = "sk-bench-0123456789";
const CLK_TCK = 100;
const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-c", "0", "true"]);
    return true;
  } catch {
    return false;
  }
})();
const pin = (cpu, cmd, args) => (hasTaskset ? ["taskset", ["-c", String(cpu), cmd, ...args]] : [cmd, args]);

function start(name, cpu, cmd, args, env = {}) {
  const [c, a] = pin(cpu, cmd, args);
  const proc = spawn(c, a, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  const port = new Promise((resolve, reject) => {
    if (name === "omnigate") return resolve(0);
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${out}`)), 30_000);
    proc.stdout.on("data", () => {
      const m = /LISTENING (\d+)/.exec(out) ?? /"http":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.once("exit", (code) => reject(new Error(`${name} exited ${code}: ${out}`)));
  });
  return { name, proc, port, log: () => out };
}

/** A port that was free a moment ago (the gateway logs its port only at info level). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** CPU ticks (user+system, and system alone), and read-like and write-like system calls (`/proc/<pid>/io`: read, readv, write, writev ...). */
function procCounts(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  const n = (k) => Number(new RegExp(`${k}: (\\d+)`).exec(io)?.[1] ?? NaN);
  return { cpu: Number(f[11]) + Number(f[12]), sys: Number(f[12]), reads: n("syscr"), writes: n("syscw") };
}
/** What a process spent a request between two procCounts (undefined without a process or requests). */
function perRequest(before, after, requests) {
  const per = (k) => (before && requests ? (after[k] - before[k]) / requests : undefined);
  const us = (k) => (per(k) === undefined ? undefined : per(k) * (1e6 / CLK_TCK));
  return { cpuUsPerReq: us("cpu"), sysUsPerReq: us("sys"), readsPerReq: per("reads"), writesPerReq: per("writes") };
}
/** Resets a process's peak RSS (VmHWM), so that it covers what follows; false where the kernel does not allow it. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
function memKb(pid, field) {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

/** An autocannon result's failed requests: errors, timeouts and answers other than 2xx. */
const failures = (r) => r.errors + r.timeouts + (r.non2xx ?? 0);

/** The pinned autocannon command line for one load run. */
function autocannonCommand(url, req, { duration, amount, rate }) {
  const args = [path.join(ROOT, "node_modules/autocannon/autocannon.js"), "--json", "-c", String(CONNECTIONS), "-m", req.method ?? "POST"];
  if (rate) args.push("-R", String(rate));
  if (amount) args.push("-a", String(amount));
  else args.push("-d", String(duration));
  for (const [k, v] of Object.entries(req.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (req.body !== undefined) args.push("-b", JSON.stringify(req.body));
  args.push(url);
  return pin(0, process.execPath, args);
}

function autocannon(url, req, opts) {
  const [c, a] = autocannonCommand(url, req, opts);
  const out = execFileSync(c, a, { maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] }).toString();
  return JSON.parse(out);
}

/** autocannon as above, without blocking: two of them can load two targets at once. */
function autocannonAsync(url, req, duration) {
  const [c, a] = autocannonCommand(url, req, { duration });
  return new Promise((resolve, reject) =>
    execFile(c, a, { maxBuffer: 64 * 1024 * 1024 }, (err, out) => {
      if (err) return reject(err);
      try {
        resolve(JSON.parse(out.toString()));
      } catch (e) {
        reject(e);
      }
    }),
  );
}

/**
 * Both targets under load at the same time, each from its own load generator,
 * for SIDE_ROUNDS rounds: the CPU per request of each over the same seconds.
 * The alternating rounds measure each target seconds apart, and on a shared
 * machine its speed moves that much between them; side by side a slow spell
 * slows both. Each target then has about half of the CPU and shares its caches
 * with the other, so this gives the CPU ratio only (throughput and latency
 * come from the alternating rounds).
 */
async function sideBySide(proxy, proxyReq, og, ogReq) {
  if (!proxy.pid || !og.pid) return undefined;
  const rounds = [];
  // One round unmeasured: the two targets have only been loaded alone so far.
  await Promise.all([autocannonAsync(proxy.base + proxyReq.path, proxyReq, WARMUP), autocannonAsync(og.base + ogReq.path, ogReq, WARMUP)]);
  for (let i = 0; i < SIDE_ROUNDS; i++) {
    const pb = procCounts(proxy.pid);
    const ob = procCounts(og.pid);
    const [pr, orr] = await Promise.all([autocannonAsync(proxy.base + proxyReq.path, proxyReq, DURATION), autocannonAsync(og.base + ogReq.path, ogReq, DURATION)]);
    const pa = procCounts(proxy.pid);
    const oa = procCounts(og.pid);
    const p = perRequest(pb, pa, pr.requests.total).cpuUsPerReq;
    const o = perRequest(ob, oa, orr.requests.total).cpuUsPerReq;
    rounds.push({ proxy: p, omnigate: o, errors: failures(pr) + failures(orr) });
  }
  const ratios = rounds.map((r) => r.omnigate / r.proxy).filter(Number.isFinite);
  return {
    proxy: median(rounds.map((r) => r.proxy)),
    omnigate: median(rounds.map((r) => r.omnigate)),
    cpu: median(ratios),
    cpuRange: ratios.length ? [Math.min(...ratios), Math.max(...ratios)] : undefined,
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    rounds,
  };
}

async function waitHealthy(url, p) {
  for (let i = 0; i < 300; i++) {
    if (p.proc.exitCode !== null) throw new Error(`${p.name} exited: ${p.log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} did not become healthy: ${p.log()}`);
}

async function probe(url, req, expect) {
  const send = () => fetch(url, { method: req.method ?? "POST", headers: req.headers, body: req.body === undefined ? undefined : JSON.stringify(req.body) });
  let res;
  try {
    res = await send();
  } catch (err) {
    // A keep-alive connection the server closed while idle (between scenarios) fails the request once: try again on a fresh one.
    await new Promise((r) => setTimeout(r, 200));
    try {
      res = await send();
    } catch (again) {
      throw new Error(`${again.message}${again.cause ? ` (${again.cause.code ?? again.cause.message})` : ""}`);
    }
  }
  const text = await res.text();
  if (res.status !== 200 || !expect.test(text)) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
}

/** Latency at a fixed offered rate (the same for every target), 32 connections: what a gateway adds when it is not saturated. */
/**
 * Drives a target at a fixed rate with bench/paced-load.mjs (open loop: requests
 * evenly spaced, latency from when each was due). Not autocannon's -R, which
 * lets each connection send its share of a second as fast as it can and then
 * wait, so the target is saturated for part of every second.
 */
function atRate(target, url, req, rate) {
  const opts = { url, method: req.method ?? "POST", headers: req.headers ?? {}, body: req.body, rate, durationS: DURATION, connections: CONNECTIONS };
  const [c, a] = pin(0, process.execPath, [path.join(ROOT, "bench/paced-load.mjs"), JSON.stringify(opts)]);
  const pid = target.pid;
  const before = pid ? procCounts(pid) : undefined;
  const r = JSON.parse(execFileSync(c, a, { maxBuffer: 16 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] }).toString());
  const after = pid ? procCounts(pid) : undefined;
  return {
    target,
    rate,
    rps: r.rps,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    // The process's CPU over the whole run, the generator's warm-up included: per request of that run (r.sent).
    ...perRequest(before, after, r.sent),
  };
}

/** Medians over equal-load rounds (each round's figures kept). */
function combineAtRate(rounds) {
  return {
    target: rounds[0].target,
    rate: rounds[0].rate,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p90: median(rounds.map((r) => r.p90)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    rounds: rounds.map(({ target: _t, ...r }) => r),
  };
}

const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;

/**
 * Loads a target until its CPU per request stops falling. A freshly started
 * gateway needs 15-20 s of load before it is steady (V8 compiles its hot code
 * in tiers on the helper threads, and sizes its young generation), the bare
 * proxy, with far less code, about 2: a fixed short warm-up measured the
 * gateway's start-up, not its cost per request. So the load runs in 2-second
 * slices, each slice's CPU per request is read, and the warm-up ends once the
 * last three slices cost no less than 95% of the three before them (at least
 * 12 s), after at least BENCH_WARMUP and at most BENCH_WARMUP_MAX seconds. The slices are reported
 * (the first is the cold cost), so the warm-up is visible, not hidden.
 */
function warmUp(target, url, req) {
  const slices = [];
  if (WARMUP <= 0) return { seconds: 0, slices, steady: false };
  if (!target.pid) {
    autocannon(url, req, { duration: WARMUP });
    return { seconds: WARMUP, slices, steady: false };
  }
  let seconds = 0;
  while (seconds < Math.max(WARMUP, WARMUP_MAX)) {
    const before = procCounts(target.pid).cpu;
    const r = autocannon(url, req, { duration: WARMUP_SLICE });
    const us = ((procCounts(target.pid).cpu - before) * (1e6 / CLK_TCK)) / Math.max(1, r.requests.total);
    slices.push(Math.round(us * 10) / 10);
    seconds += WARMUP_SLICE;
    // Steady: the last three slices cost no less than 95% of the three before them.
    const n = slices.length;
    if (seconds >= WARMUP && n >= 6 && mean(slices.slice(n - 3)) >= 0.95 * mean(slices.slice(n - 6, n - 3))) return { seconds, slices, steady: true };
  }
  return { seconds, slices, steady: false };
}

async function measure(target, url, req, expect, { warmup = true } = {}) {
  try {
    await probe(url, req, expect);
  } catch (err) {
    return { target, error: String(err.message ?? err).slice(0, 200) };
  }
  // "fixed": BENCH_WARMUP seconds only (the local-engine scenarios, whose submits pile up tasks).
  const warm = warmup === "fixed" ? (autocannon(url, req, { duration: WARMUP }), undefined) : warmup ? warmUp(target, url, req) : undefined;
  const pid = target.pid;
  const before = pid ? procCounts(pid) : undefined;
  const r = autocannon(url, req, { duration: DURATION });
  const after = pid ? procCounts(pid) : undefined;
  const total = r.requests.total;
  return {
    target,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: failures(r),
    requests: total,
    ...perRequest(before, after, total),
    ...(warm ? { warmup: warm } : {}),
  };
}

const median = (xs) => {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return undefined;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

/** One target's rounds as one result: the median of each figure (the first error, if a round failed). */
function combine(rounds) {
  const failed = rounds.find((r) => r.error);
  if (failed) return failed;
  return {
    target: rounds[0].target,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    requests: rounds.reduce((a, r) => a + r.requests, 0),
    cpuUsPerReq: median(rounds.map((r) => r.cpuUsPerReq)),
    sysUsPerReq: median(rounds.map((r) => r.sysUsPerReq)),
    readsPerReq: median(rounds.map((r) => r.readsPerReq)),
    writesPerReq: median(rounds.map((r) => r.writesPerReq)),
    rounds: rounds.map(({ target: _t, ...r }) => r),
  };
}

/** omnigate ÷ proxy per round (each pair measured back to back): the median, and the range over rounds. */
function pairedRatios(proxyRounds, ogRounds) {
  if (proxyRounds.some((r) => r.error) || ogRounds.some((r) => r.error)) return undefined;
  const rps = ogRounds.map((o, i) => o.rps / proxyRounds[i].rps);
  const cpu = ogRounds.map((o, i) => (o.cpuUsPerReq && proxyRounds[i].cpuUsPerReq ? o.cpuUsPerReq / proxyRounds[i].cpuUsPerReq : NaN)).filter(Number.isFinite);
  const range = (xs) => (xs.length ? [Math.min(...xs), Math.max(...xs)] : undefined);
  return { rps: median(rps), rpsRange: range(rps), cpu: median(cpu), cpuRange: range(cpu) };
}

const anthropicHeaders = { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" };
const openaiHeaders = { "content-type": "application/json", authorization: `Bearer ${KEY}` };
const geminiHeaders = { "content-type": "application/json", "x-goog-api-key": KEY };
const msgs = [{ role: "user", content: "Say twenty words, please." }];
const anthropicBody = (model, stream) => ({ model, max_tokens: 256, messages: msgs, ...(stream ? { stream: true } : {}) });
const openaiBody = (stream, model = "bench") => ({ model, messages: msgs, max_tokens: 256, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
// Codex's way: store false (a stored response adds a database write the proxy has no counterpart of).
const responsesBody = (stream, model) => ({ model, input: "Say twenty words, please.", max_output_tokens: 256, store: false, ...(stream ? { stream: true } : {}) });
const geminiBody = { contents: [{ role: "user", parts: [{ text: "Say twenty words, please." }] }], generationConfig: { maxOutputTokens: 256 } };

/** Chat scenarios: the omnigate request and the same upstream call made directly / through the bare proxy. */
// The non-streaming scenarios first: a process that has served streams costs
// more a non-streaming request afterwards, the bare proxy much more than the
// gateway (42 -> 52 µs against 85 -> 87-90 on one machine, 2026-11-27, the
// code paths it shares between the two having seen both), so a non-streaming
// row measured after a streaming one flattered the gateway's ratio.
/** A chat scenario's row label, which BENCH_ONLY matches. */
const labelOf = (s) => `${s.name}, ${s.stream ? "streaming (20 chunks)" : "non-streaming"}`;

const chat = [
  {
    name: "Anthropic client -> OpenAI upstream",
    stream: false,
    og: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench-openai", false) },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(false) },
    expect: /word19/,
  },
  {
    name: "GenAI client -> Anthropic upstream",
    stream: false,
    og: { path: "/v1beta/models/bench-anthropic:generateContent", headers: geminiHeaders, body: geminiBody },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", false) },
    expect: /word19/,
  },
  {
    name: "Anthropic client -> Anthropic upstream",
    stream: false,
    og: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench-anthropic", false) },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", false) },
    expect: /word19/,
  },
  {
    name: "OpenAI client -> OpenAI upstream",
    stream: false,
    og: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(false, "bench-openai") },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(false) },
    expect: /word19/,
  },
  {
    name: "OpenAI client -> Anthropic upstream",
    stream: false,
    og: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(false, "bench-anthropic") },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", false) },
    expect: /word19/,
  },
  {
    name: "Responses client -> OpenAI upstream",
    stream: false,
    og: { path: "/v1/responses", headers: openaiHeaders, body: responsesBody(false, "bench-openai") },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(false) },
    expect: /word19/,
  },
  {
    name: "Responses client -> Anthropic upstream",
    stream: false,
    og: { path: "/v1/responses", headers: openaiHeaders, body: responsesBody(false, "bench-anthropic") },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", false) },
    expect: /word19/,
  },
  {
    name: "Anthropic client -> OpenAI upstream",
    stream: true,
    og: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench-openai", true) },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(true) },
    expect: /word19/,
  },
  {
    name: "GenAI client -> Anthropic upstream",
    stream: true,
    og: { path: "/v1beta/models/bench-anthropic:streamGenerateContent?alt=sse", headers: geminiHeaders, body: geminiBody },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", true) },
    expect: /word19/,
  },
  {
    name: "Anthropic client -> Anthropic upstream",
    stream: true,
    og: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench-anthropic", true) },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", true) },
    expect: /word19/,
  },
  {
    name: "OpenAI client -> OpenAI upstream",
    stream: true,
    og: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(true, "bench-openai") },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(true) },
    expect: /word19/,
  },
  {
    name: "OpenAI client -> Anthropic upstream",
    stream: true,
    og: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(true, "bench-anthropic") },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", true) },
    expect: /word19/,
  },
  {
    name: "Responses client -> OpenAI upstream",
    stream: true,
    og: { path: "/v1/responses", headers: openaiHeaders, body: responsesBody(true, "bench-openai") },
    up: { path: "/v1/chat/completions", headers: openaiHeaders, body: openaiBody(true) },
    expect: /word19/,
  },
  {
    name: "Responses client -> Anthropic upstream",
    stream: true,
    og: { path: "/v1/responses", headers: openaiHeaders, body: responsesBody(true, "bench-anthropic") },
    up: { path: "/v1/messages", headers: anthropicHeaders, body: anthropicBody("bench", true) },
    expect: /word19/,
  },
];

/** " (low–high)" for a range over rounds, when it is not a single value. */
function spread(range, d = 2) {
  return range && range[1] - range[0] >= 0.5 * 10 ** -d ? ` (${fmt(range[0], d)}–${fmt(range[1], d)})` : "";
}

function fmt(n, d = 0) {
  return n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d);
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), "omnigate-bench-"));
  const procs = [];
  const stopAll = () => procs.forEach((p) => p.proc.kill("SIGTERM"));
  // A stop for a run that hangs: by default ten minutes, plus seven a chat scenario selected (warm-ups, rounds, equal load).
  const selected = chat.filter((s) => !ONLY || ONLY.test(labelOf(s))).length;
  const guard = setTimeout(
    () => {
      console.error("bench: time limit reached, stopping");
      stopAll();
      process.exit(1);
    },
    Number(process.env.BENCH_TIME_LIMIT_S ?? 600 + 420 * selected) * 1000,
  );
  guard.unref();
  try {
    const upstream = start("upstream", 0, process.execPath, ["bench/fake-upstream.mjs"]);
    procs.push(upstream);
    const upPort = await upstream.port;
    const up = `http://127.0.0.1:${upPort}`;
    const proxy = start("bare proxy", 1, process.execPath, [...(PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.join(PROF_DIR, "proxy")}`] : []), "bench/bare-proxy.mjs"], { UPSTREAM: up });
    procs.push(proxy);
    const config = path.join(dir, "omnigate.json");
    writeFileSync(
      config,
      JSON.stringify({
        channels: [
          { name: "bench-openai", provider: "openai", baseUrl: `${up}/v1`, apiKey: "sk-up", models: ["bench-openai"] },
          { name: "bench-anthropic", provider: "anthropic", baseUrl: up, apiKey: "sk-up", models: ["bench-anthropic"] },
          { name: "bench-gemini", provider: "gemini", baseUrl: up, apiKey: "sk-up", models: ["bench-gemini"] },
        ],
      }),
    );
    // BENCH_GATEWAY_ENTRY: a compiled main.js to run instead of `npm start` (profiles then keep source lines).
    const [cmd, ...args] = process.env.BENCH_GATEWAY_ENTRY ? ["node", process.env.BENCH_GATEWAY_ENTRY] : JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.start.split(/\s+/);
    /** Starts a gateway with its own data dir and ports, and waits until it is healthy. */
    const startGateway = async (name, extraEnv = {}, entry = undefined) => {
      const http = await freePort();
      const grpc = await freePort();
      // BENCH_NODE_FLAGS: node/V8 flags for the gateway (e.g. V8's own heap sizing, to compare with the defaults of docs/deploy.md, Memory).
      const nodeFlags = cmd === "node" ? (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean) : [];
      // After npm start's own node flags (the last of a repeated V8 flag wins), before its script (or `entry`, another build's main.js).
      const gwArgs = [...args.slice(0, -1), ...nodeFlags, ...(PROF_DIR && cmd === "node" ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : []), ...(entry ? [entry] : args.slice(-1))];
      const g = start("omnigate", 1, cmd === "node" ? process.execPath : cmd, gwArgs, {
        OMNIGATE_PORT: String(http),
        OMNIGATE_GRPC_PORT: String(grpc),
        OMNIGATE_DATA_DIR: path.join(dir, name),
        OMNIGATE_CONFIG: config,
        OMNIGATE_BOOTSTRAP_KEY: KEY,
        OMNIGATE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
        OMNIGATE_LOCAL_TASK_MS: "50",
        ...extraEnv,
      });
      procs.push(g);
      await waitHealthy(`http://127.0.0.1:${http}/healthz`, g);
      return { g, port: http };
    };
    const proxyPort = await proxy.port;
    const { g: gateway, port: gwPort } = await startGateway("data");
    // BENCH_BASELINE_ENV ("NAME=value,NAME=value"): an A/B of settings. A second omnigate, started with
    // these variables, takes the bare proxy's place in every round and ratio (the rows keep its label).
    // BENCH_BASELINE_ENTRY: the same for two builds: the second omnigate runs this compiled main.js (another
    // checkout's dist/server/<hash>/src/server/main.js) with npm start's node flags.
    const baselineEnv = process.env.BENCH_BASELINE_ENV ? Object.fromEntries(process.env.BENCH_BASELINE_ENV.split(",").map((kv) => kv.split(/=(.*)/s, 2))) : undefined;
    const baselineEntry = process.env.BENCH_BASELINE_ENTRY;
    const baseline = baselineEnv || baselineEntry ? await startGateway("baseline-data", baselineEnv ?? {}, baselineEntry) : undefined;
    const targets = {
      direct: { name: "direct", pid: undefined, base: up },
      proxy: baseline
        ? { name: "bare proxy", pid: baseline.g.proc.pid, base: `http://127.0.0.1:${baseline.port}` }
        : { name: "bare proxy", pid: proxy.proc.pid, base: `http://127.0.0.1:${proxyPort}` },
      omnigate: { name: "omnigate", pid: gateway.proc.pid, base: `http://127.0.0.1:${gwPort}` },
    };
    const rows = [];
    for (const s of chat) {
      const label = labelOf(s);
      if (ONLY && !ONLY.test(label)) continue;
      const direct = await measure(targets.direct, up + s.up.path, s.up, s.expect);
      // What the proxy's place is sent: the upstream's request, or omnigate's own when a second omnigate stands there.
      const baseReq = baseline ? s.og : s.up;
      const proxyRounds = [];
      const ogRounds = [];
      for (let i = 0; i < ROUNDS; i++) {
        proxyRounds.push(await measure(targets.proxy, targets.proxy.base + baseReq.path, baseReq, s.expect, { warmup: i === 0 }));
        ogRounds.push(await measure(targets.omnigate, targets.omnigate.base + s.og.path, s.og, s.expect, { warmup: i === 0 }));
      }
      const proxied = combine(proxyRounds);
      const og = combine(ogRounds);
      const paired = pairedRatios(proxyRounds, ogRounds);
      const side = SIDE_ROUNDS > 0 && !og.error && !proxied.error ? await sideBySide(targets.proxy, baseReq, targets.omnigate, s.og) : undefined;
      let equal;
      if (EQUAL_LOAD > 0 && !og.error && !proxied.error && og.rps > 0) {
        // From omnigate's slowest saturated round, not the median: a machine that slows between the
        // rounds above and these would otherwise run them near omnigate's saturation.
        const slowest = Math.min(...ogRounds.map((r) => r.rps));
        const rate = Math.max(20, Math.floor((slowest * EQUAL_LOAD) / 10) * 10);
        // Alternating rounds, as above: one slow spell of the machine then moves one round, not the row.
        const pr = [];
        const or = [];
        for (let i = 0; i < ROUNDS; i++) {
          pr.push(atRate(targets.proxy, targets.proxy.base + baseReq.path, baseReq, rate));
          or.push(atRate(targets.omnigate, targets.omnigate.base + s.og.path, s.og, rate));
        }
        const added = (k) => or.map((o, i) => o[k] - pr[i][k]);
        const range = (xs) => [Math.min(...xs), Math.max(...xs)];
        equal = {
          rate,
          proxy: combineAtRate(pr),
          omnigate: combineAtRate(or),
          addedP50: median(added("p50")),
          addedP90: median(added("p90")),
          addedP99: median(added("p99")),
          addedP99Range: range(added("p99")),
          // Rounds in which a target did not keep up with the rate (it answered under 97% of it): those measured queueing, not added latency.
          behind: { proxy: pr.filter((r) => r.rps < 0.97 * rate).length, omnigate: or.filter((r) => r.rps < 0.97 * rate).length },
        };
      }
      rows.push({ scenario: label, results: [direct, proxied, og], baseline: proxied, ...(paired ? { paired } : {}), ...(side ? { side } : {}), equal });
      process.stderr.write(`done: ${label}\n`);
    }
    const local = [
      { label: "image-bot submit (local engine, shortest task)", path: "/ib/submit/imagine", req: { headers: openaiHeaders, body: { prompt: "a bench cat --ar 1:1" } }, expect: /"code":(1|22)/ },
      {
        label: "images generations 256x256 (local engine, b64)",
        path: "/v1/images/generations",
        req: { headers: openaiHeaders, body: { model: "IMG_MODEL_A", prompt: "a bench cat", size: "256x256", response_format: "b64_json" } },
        expect: /b64_json/,
      },
    ];
    for (const l of local) {
      if (ONLY && !ONLY.test(l.label)) continue;
      rows.push({ scenario: l.label, results: [await measure(targets.omnigate, targets.omnigate.base + l.path, l.req, l.expect, { warmup: "fixed" })] });
      process.stderr.write(`done: ${l.label}\n`);
    }
    // Peak memory over the scenarios above (the image scenarios included); under BENCH_BASELINE_ENV the proxy's place is the second omnigate.
    const peak = { proxy: memKb(targets.proxy.pid, "VmHWM") / 1024, omnigate: memKb(gateway.proc.pid, "VmHWM") / 1024 };
    let soak;
    if (SOAK > 0 && (!ONLY || ONLY.test("soak"))) {
      // A fresh gateway, so that the soak sees chat alone (not the image engine loaded by the scenarios above).
      const s = chat[0];
      try {
        gateway.proc.kill("SIGTERM");
        const fresh = await startGateway("soak-data");
        const url = `http://127.0.0.1:${fresh.port}${s.og.path}`;
        await probe(url, s.og, s.expect);
        const startMb = memKb(fresh.g.proc.pid, "VmRSS") / 1024;
        const third = Math.floor(SOAK / 3);
        const rss = [];
        const peaks = [];
        for (let i = 0; i < 3; i++) {
          // RSS right after a third depends on where V8 is in its GC cycle; the peak of each
          // third (VmHWM, reset before it through clear_refs) shows whether the envelope grows.
          const reset = resetPeak(fresh.g.proc.pid);
          autocannon(url, s.og, { amount: third });
          rss.push(memKb(fresh.g.proc.pid, "VmRSS") / 1024);
          if (reset) peaks.push(memKb(fresh.g.proc.pid, "VmHWM") / 1024);
        }
        soak = { requests: third * 3, startMb, rssMb: rss, ...(peaks.length === 3 ? { thirdPeaksMb: peaks } : {}), peakMb: Math.max(...peaks, memKb(fresh.g.proc.pid, "VmHWM") / 1024) };
      } catch (err) {
        soak = { error: String(err.message ?? err).slice(0, 200) };
      }
    }
    report({
      rows,
      soak,
      peak,
      meta: {
        duration: DURATION,
        rounds: ROUNDS,
        sideRounds: SIDE_ROUNDS,
        connections: CONNECTIONS,
        pinned: hasTaskset,
        node: process.version,
        nodeFlags: process.env.BENCH_NODE_FLAGS ?? "",
        machine: readMachine(),
        date: new Date().toISOString(),
      },
    });
  } finally {
    stopAll();
    clearTimeout(guard);
    // Wait (a little) for the servers to exit, then drop their data dirs.
    await Promise.race([
      Promise.all(procs.map((p) => (p.proc.exitCode !== null || p.proc.signalCode !== null ? undefined : new Promise((r) => p.proc.once("exit", r))))),
      new Promise((r) => setTimeout(r, 15_000)),
    ]);
    // BENCH_GATEWAY_LOG: where to keep the gateways' output (e.g. with BENCH_NODE_FLAGS=--trace-gc).
    if (process.env.BENCH_GATEWAY_LOG)
      writeFileSync(
        process.env.BENCH_GATEWAY_LOG,
        procs
          .filter((p) => p.name === "omnigate")
          .map((p) => p.log())
          .join("\n"),
      );
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "none", or which target fell behind the rate in how many rounds (such a row measured queueing). */
function behindText(b, rounds) {
  if (!b || (!b.proxy && !b.omnigate)) return "none";
  return [b.proxy ? `proxy ${b.proxy}/${rounds}` : "", b.omnigate ? `omnigate ${b.omnigate}/${rounds}` : ""].filter(Boolean).join(", ");
}

function report(data) {
  const lines = [];
  lines.push(`# omnigate benchmark, ${data.meta.date}`);
  lines.push("");
  lines.push(
    `Node ${data.meta.node}${data.meta.nodeFlags ? ` (gateway flags: ${data.meta.nodeFlags})` : ""}; ${data.meta.connections} connections; ${data.meta.duration} s per measurement after a warm-up; ${data.meta.pinned ? "load generator and upstream on cpu0, system under test on cpu1" : "no CPU pinning (taskset missing)"}.`,
  );
  lines.push("");
  // Ratios move with the machine as well as with its load: compare runs on the same kind (bench/README.md, How to read it).
  lines.push(`Machine: ${describeMachine(data.meta.machine)}.`);
  if (data.meta.rounds > 1) {
    lines.push("");
    lines.push(
      `Chat scenarios: bare proxy and omnigate measured in ${data.meta.rounds} alternating rounds; their rows show the median of each figure, and omnigate's ratios are the median of the per-round ratios (each round's pair measured back to back), with their range in brackets.`,
    );
  }
  lines.push("");
  lines.push("| scenario | target | req/s | p50 ms | p99 ms | CPU µs/req | ÷ proxy req/s | ÷ proxy CPU | errors |");
  lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of data.rows) {
    for (const r of row.results) {
      if (r.error) {
        lines.push(`| ${row.scenario} | ${r.target.name} | unavailable: ${r.error.replace(/\|/g, "/")} | | | | | | |`);
        continue;
      }
      const b = row.baseline && !row.baseline.error ? row.baseline : undefined;
      const paired = r.target.name === "omnigate" ? row.paired : undefined;
      const ratio = paired?.rps !== undefined ? fmt(paired.rps, 2) + spread(paired.rpsRange) : b ? fmt(r.rps / b.rps, 2) : "-";
      const cpuRatio = paired?.cpu !== undefined ? fmt(paired.cpu, 2) + spread(paired.cpuRange) : b && r.cpuUsPerReq && b.cpuUsPerReq ? fmt(r.cpuUsPerReq / b.cpuUsPerReq, 2) : "-";
      lines.push(`| ${row.scenario} | ${r.target.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUsPerReq)} | ${ratio} | ${cpuRatio} | ${r.errors} |`);
    }
  }
  const side = data.rows.filter((row) => row.side);
  if (side.length) {
    lines.push("");
    lines.push(
      `Side by side: bare proxy and omnigate under load at the same time (each from its own load generator, both on the same CPU) in ${data.meta.sideRounds} rounds, so that a slow spell of the machine slows both: each one's CPU µs a request (medians), and omnigate's over the proxy's as the median of the per-round ratios, with their range. Steadier than the alternating rounds above, which measure the two seconds apart; sharing a CPU's caches and time slices can weigh more on the larger process, so it may read somewhat high (bench/README.md).`,
    );
    lines.push("");
    lines.push("| scenario | proxy CPU µs/req | omnigate CPU µs/req | ÷ proxy CPU | errors |");
    lines.push("|---|---:|---:|---:|---:|");
    for (const row of side) lines.push(`| ${row.scenario} | ${fmt(row.side.proxy)} | ${fmt(row.side.omnigate)} | ${fmt(row.side.cpu, 2)}${spread(row.side.cpuRange)} | ${row.side.errors} |`);
  }
  const warmed = data.rows.filter((row) => row.results.some((r) => r.rounds?.[0]?.warmup?.slices?.length));
  if (warmed.length) {
    lines.push("");
    lines.push(
      `Warm-up before each chat scenario's first round: load in ${WARMUP_SLICE}-second slices until the last three cost no less than 95% of the three before them (CPU per request; at least 12 s, at most ${WARMUP_MAX} s). The first slice is the cold cost; "not steady" means the limit ended it.`,
    );
    lines.push("");
    lines.push("| scenario | target | warm-up s | CPU µs/req per slice |");
    lines.push("|---|---|---:|---|");
    for (const row of warmed) {
      for (const r of row.results) {
        const w = r.rounds?.[0]?.warmup;
        if (!w?.slices?.length) continue;
        lines.push(`| ${row.scenario} | ${r.target.name} | ${w.seconds}${w.steady ? "" : " (not steady)"} | ${w.slices.map((x) => fmt(x)).join(", ")} |`);
      }
    }
  }
  const counted = data.rows.filter((row) => row.results?.some((r) => r.sysUsPerReq !== undefined));
  if (counted.length) {
    lines.push("");
    lines.push(
      "Where the CPU a request goes, saturated (medians of the rounds): the process's CPU µs a request, of which in the kernel (system time: mostly the socket calls, including the loopback delivery and the wake-up of the peer they set off), and its read-like and write-like system calls a request (`/proc/<pid>/io`; the gateway's usage batches add their SQLite writes). At equal load, the same CPU figure over each paced run.",
    );
    lines.push("");
    lines.push("| scenario | target | CPU µs/req | of which system | reads/req | writes/req | at equal load: CPU µs/req, of which system |");
    lines.push("|---|---|---:|---:|---:|---:|---:|");
    for (const row of counted) {
      for (const r of row.results) {
        if (r.sysUsPerReq === undefined) continue;
        const eq = row.equal?.[r.target.name === "bare proxy" ? "proxy" : "omnigate"];
        const eqText = eq?.rounds?.length ? `${fmt(median(eq.rounds.map((x) => x.cpuUsPerReq)))}, ${fmt(median(eq.rounds.map((x) => x.sysUsPerReq)))}` : "-";
        lines.push(`| ${row.scenario} | ${r.target.name} | ${fmt(r.cpuUsPerReq)} | ${fmt(r.sysUsPerReq)} | ${fmt(r.readsPerReq, 2)} | ${fmt(r.writesPerReq, 2)} | ${eqText} |`);
      }
    }
  }
  const equal = data.rows.filter((r) => r.equal);
  if (equal.length) {
    lines.push("");
    lines.push(
      `Latency at equal load: bare proxy and omnigate each driven at the same fixed rate (${Math.round(EQUAL_LOAD * 100)}% of omnigate's slowest round above), requests evenly spaced (bench/paced-load.mjs, at most ${data.meta.connections} connections; latency counted from when a request was due), in alternating rounds; medians of the rounds, and the added latency as the median of the paired rounds' differences (p99 with its range).`,
    );
    lines.push("");
    lines.push("| scenario | rate req/s | proxy p50 / p90 / p99 ms | omnigate p50 / p90 / p99 ms | added p50 / p90 ms | added p99 ms | rounds behind the rate | errors |");
    lines.push("|---|---:|---:|---:|---:|---:|---|---:|");
    for (const row of equal) {
      const { rate, proxy: p, omnigate: o } = row.equal;
      const e = row.equal;
      lines.push(
        `| ${row.scenario} | ${rate} | ${fmt(p.p50, 1)} / ${fmt(p.p90, 1)} / ${fmt(p.p99, 1)} | ${fmt(o.p50, 1)} / ${fmt(o.p90, 1)} / ${fmt(o.p99, 1)} | ${fmt(e.addedP50, 1)} / ${fmt(e.addedP90, 1)} | ${fmt(e.addedP99, 1)}${spread(e.addedP99Range, 1)} | ${behindText(e.behind, data.meta.rounds)} | ${p.errors + o.errors} |`,
      );
    }
  }
  lines.push("");
  lines.push(`Peak RSS (VmHWM) over the scenarios above: bare proxy ${fmt(data.peak.proxy, 1)} MB, omnigate ${fmt(data.peak.omnigate, 1)} MB.`);
  if (data.soak) {
    lines.push("");
    lines.push(
      data.soak.error
        ? `Soak: unavailable (${data.soak.error}).`
        : `Soak (a fresh gateway, ${data.soak.requests} non-streaming translated requests): RSS ${fmt(data.soak.startMb, 1)} MB at start, after each third ${data.soak.rssMb.map((x) => fmt(x, 1)).join(" / ")} MB` +
            (data.soak.thirdPeaksMb ? `; peak within each third ${data.soak.thirdPeaksMb.map((x) => fmt(x, 1)).join(" / ")} MB` : "") +
            `; peak ${fmt(data.soak.peakMb, 1)} MB.`,
    );
  }
  const md = lines.join("\n") + "\n";
  process.stdout.write(md);
  if (!SAVE) return;
  const out = path.join(ROOT, "bench", "results");
  mkdirSync(out, { recursive: true });
  const stamp = data.meta.date.replace(/[:.]/g, "-");
  const json = JSON.stringify(data, (k, v) => (k === "target" ? v.name : v), 2);
  writeFileSync(path.join(out, `${stamp}.md`), md);
  writeFileSync(path.join(out, `${stamp}.json`), json);
  writeFileSync(path.join(out, "latest.md"), md);
  writeFileSync(path.join(out, "latest.json"), json);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
