// An open-loop load generator for the equal-load rows: request i is due at
// start + i / rate, sent then over a pool of at most `connections` keep-alive
// connections, and its latency runs from when it was due to when the last byte
// of the answer arrived (so a server that falls behind is charged for the wait,
// not excused by it). autocannon's -R is not this: each connection sends as fast
// as it can until it has made its share for the current second, then waits for
// the next one, so a server at "half load" is saturated half of every second.
//
// Usage: node bench/paced-load.mjs '<json options>'
//   { url, method?, headers?, body?, rate, durationS, connections, warmupS? }
// The first warmupS seconds (default 3) run at the same rate and are not
// counted: they open the connections and warm this process's own code. One
// second was not enough: this process shares its core with the fake upstream,
// and in about one round of three its own first seconds (what in them was not
// pinned down) held up the answers of the first 100-300 ms after the warm-up,
// while, in the round traced, the target served every request in under 20 ms
// (bench/results/2026-11-28-rounds.md, tenth round, item 4).
// Prints one JSON object: { requests, sent, rps, latency: { p50, p90, p99, max, mean }, headers: { p50, p90, p99 }, errors, non2xx }.
import { Pool } from "undici";

const o = JSON.parse(process.argv[2] ?? "{}");
const url = new URL(o.url);
const rate = Number(o.rate);
const durationS = Number(o.durationS ?? 8);
const connections = Number(o.connections ?? 32);
if (!(rate > 0) || !(durationS > 0)) {
  console.error("paced-load: rate and durationS must be positive");
  process.exit(2);
}
const pool = new Pool(url.origin, { connections, pipelining: 1 });
const body = o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
const req = { path: url.pathname + url.search, method: o.method ?? "POST", headers: o.headers ?? {}, body };

const warm = Math.round(rate * Number(o.warmupS ?? 3));
const total = warm + Math.round(rate * durationS);
const latencies = new Float64Array(total);
const firstBytes = new Float64Array(total);
let done = 0;
let errors = 0;
let non2xx = 0;
const counted = (i) => i >= warm;
let sent = 0;
const start = performance.now();

function fire(i, due) {
  pool
    .request(req)
    .then(async (res) => {
      firstBytes[i] = performance.now() - due;
      if ((res.statusCode < 200 || res.statusCode >= 300) && counted(i)) non2xx++;
      // Read to the end: a stream's latency is until its last event.
      for await (const _ of res.body);
      latencies[i] = performance.now() - due;
    })
    .catch(() => {
      if (counted(i)) errors++;
      latencies[i] = performance.now() - due;
    })
    .finally(() => {
      if (++done === total) finish();
    });
}

// Every millisecond or so, send what has come due (a timer cannot wake at each
// request's instant; the lateness of this loop is counted in the latencies).
function tick() {
  const now = performance.now();
  while (sent < total && start + (sent * 1000) / rate <= now) {
    fire(sent, start + (sent * 1000) / rate);
    sent++;
  }
  if (sent < total) setTimeout(tick, 1);
}
tick();

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function finish() {
  const elapsed = (performance.now() - start) / 1000 - warm / rate;
  const sorted = Array.from(latencies.subarray(warm)).sort((a, b) => a - b);
  const headers = Array.from(firstBytes.subarray(warm)).sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const r3 = (x) => Math.round(x * 1000) / 1000;
  process.stdout.write(
    JSON.stringify({
      requests: total - warm,
      // Everything sent, the uncounted warm-up included (for the target's CPU per request over the whole run).
      sent: total,
      rps: (total - warm) / elapsed,
      latency: { p50: r3(pct(sorted, 50)), p90: r3(pct(sorted, 90)), p99: r3(pct(sorted, 99)), max: r3(sorted.at(-1)), mean: r3(mean) },
      // Until the response's headers: for a stream, until its first event was out.
      headers: { p50: r3(pct(headers, 50)), p90: r3(pct(headers, 90)), p99: r3(pct(headers, 99)) },
      errors,
      non2xx,
    }) + "\n",
  );
  void pool.close().then(() => process.exit(0));
}
