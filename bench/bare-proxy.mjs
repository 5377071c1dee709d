// The floor for a Node gateway doing no work: fastify 5 + an undici Pool,
// forwarding the body opaquely; JSON answers buffered, SSE piped.
import Fastify from "fastify";
import { Pool } from "undici";

const upstream = process.env.UPSTREAM;
const pool = new Pool(upstream, { connections: 64, pipelining: 1 });
const app = Fastify({ logger: false, bodyLimit: 32 * 1024 * 1024 });
// BENCH_PROXY_JSON=1: the proxy parses each JSON body and serialises it again,
// both ways (a diagnostic: the least work a translating gateway must do).
const json = process.env.BENCH_PROXY_JSON === "1";
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
if (json) app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => done(null, JSON.parse(body)));

// BENCH_PROXY_BURN_US: a busy wait of that many µs per request, before the
// upstream call (a diagnostic: what a proxy as slow as the gateway pays the
// kernel per request; not used by a normal run).
const burnUs = Number(process.env.BENCH_PROXY_BURN_US ?? 0);
const burn = () => {
  const until = process.hrtime.bigint() + BigInt(Math.round(burnUs * 1000));
  while (process.hrtime.bigint() < until);
};

app.all("/*", async (req, reply) => {
  if (burnUs > 0) burn();
  const body = json && !Buffer.isBuffer(req.body) ? JSON.stringify(req.body) : req.body;
  const res = await pool.request({ path: req.url, method: req.method, headers: { "content-type": req.headers["content-type"] ?? "application/json" }, body });
  const type = String(res.headers["content-type"] ?? "application/json");
  reply.code(res.statusCode).header("content-type", type);
  if (type.startsWith("text/event-stream")) return reply.send(res.body);
  if (json && type.startsWith("application/json")) return reply.send(JSON.parse(await res.body.text()));
  return reply.send(Buffer.from(await res.body.arrayBuffer()));
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`LISTENING ${new URL(address).port}\n`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
