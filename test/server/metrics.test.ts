import t from "tap";
import { Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { BucketHistogram, createMetrics } from "../../src/server/metrics.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];

t.test("BucketHistogram writes what prom-client's Histogram writes for the same observations", async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const h = new BucketHistogram<"method" | "route">("x_seconds", "latency", BUCKETS, ours);
  const ref = new Histogram({ name: "x_seconds", help: "latency", labelNames: ["method", "route"], buckets: BUCKETS, registers: [theirs] });
  const obs: [string, string, number][] = [
    ["GET", "/a", 0.0005],
    ["GET", "/a", 0.001],
    ["GET", "/a", 0.05],
    ["POST", "/b", 3],
    ["GET", "/a", 0.5],
    ["POST", "/b", 0.01],
  ];
  for (const [method, route, v] of obs) {
    h.observe(route, method, () => ({ method, route }), v);
    ref.observe({ method, route }, v);
  }
  const text = await ours.metrics();
  t.equal(text, await theirs.metrics());
  t.match(text, /x_seconds_bucket\{le="\+Inf",method="POST",route="\/b"\} 2/);
  t.match(text, /x_seconds_bucket\{le="0\.001",method="GET",route="\/a"\} 2/, "a value on a bound counts in that bucket");
  ours.resetMetrics();
  t.notMatch(await ours.metrics(), /x_seconds_count/, "reset drops every label set");
});

t.test("createMetrics counts requests and times them per label set", async (t) => {
  const m = createMetrics({ defaultMetrics: false });
  m.http("GET", "/r", 200, 0.002);
  m.http("GET", "/r", 200, 0.2);
  m.http("GET", "/r", 500, 0.02);
  m.rpc("svc", "M", "ok", 0.003);
  const text = await m.registry.metrics();
  t.match(text, /omnigate_http_requests_total\{method="GET",route="\/r",status="200"\} 2/);
  t.match(text, /omnigate_http_requests_total\{method="GET",route="\/r",status="500"\} 1/);
  t.match(text, /omnigate_http_request_duration_seconds_count\{method="GET",route="\/r"\} 3/);
  t.match(text, /omnigate_http_request_duration_seconds_bucket\{le="0\.0025",method="GET",route="\/r"\} 1/);
  t.match(text, /omnigate_rpc_duration_seconds_sum\{service="svc",method="M"\} 0\.003/);
});

t.test("process metrics: prom-client's defaults, the GC histogram only when asked for", async (t) => {
  const names = async (r: Registry) => (await r.getMetricsAsJSON()).map((m) => m.name).sort();
  const theirs = new Registry();
  collectDefaultMetrics({ register: theirs, prefix: "omnigate_" });
  const all = await names(theirs);
  t.ok(all.includes("omnigate_nodejs_gc_duration_seconds"), "prom-client's defaults have the GC histogram");
  const plain = createMetrics();
  const withGc = createMetrics({ gcDurations: true });
  const ours = (await names(plain.registry)).filter((n) => all.includes(n));
  t.same(
    ours,
    all.filter((n) => n !== "omnigate_nodejs_gc_duration_seconds"),
    "every other default metric, none missing",
  );
  t.same(
    (await names(withGc.registry)).filter((n) => all.includes(n)),
    all,
    "all of them with gcDurations",
  );
  t.match(await plain.registry.metrics(), /omnigate_process_cpu_user_seconds_total \d/);
});
