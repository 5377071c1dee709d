import t from "tap";
import { Writable } from "node:stream";
import Fastify from "fastify";
import { lazyChildLogger, RequestLogger } from "../../src/server/request-logger.js";

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n")) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: { level, stream } };
}

t.test("req.log carries the request id, and is made only when a request logs at an enabled level", async (t) => {
  const { lines, logger } = capture("warn");
  const app = Fastify({ logger, childLoggerFactory: lazyChildLogger, genReqId: () => "req_1" });
  let made = 0;
  const child = app.log.child.bind(app.log);
  app.log.child = ((b: never, o: never) => {
    made++;
    return child(b, o);
  }) as typeof app.log.child;
  app.get("/quiet", async (req) => {
    req.log.info("not written at warn");
    req.log.debug({ x: 1 }, "nor this");
    return { ok: true };
  });
  app.get("/loud", async (req) => {
    req.log.warn({ x: 2 }, "written");
    req.log.error("and this");
    return { ok: true };
  });
  t.teardown(() => app.close());
  t.equal((await app.inject("/quiet")).statusCode, 200);
  t.equal(made, 0, "nothing logged: no child made");
  t.equal(lines.length, 0);
  await app.inject("/loud");
  t.equal(made, 1, "one child per request that logs");
  t.equal(lines.length, 2);
  t.match(lines[0], { level: 40, reqId: "req_1", x: 2, msg: "written" });
  t.match(lines[1], { level: 50, reqId: "req_1", msg: "and this" });
});

t.test("the lazy logger follows the parent's level and forwards child, level and bindings", async (t) => {
  const { lines, logger } = capture("info");
  const app = Fastify({ logger });
  t.teardown(() => app.close());
  const l = new RequestLogger(app.log, { requestId: "r2" }, {});
  t.equal(l.level, "info");
  t.equal(l.isLevelEnabled("debug"), false);
  l.info("hello");
  t.match(lines.at(-1), { requestId: "r2", msg: "hello" });
  t.same(l.bindings(), { requestId: "r2" });
  l.child({ part: "x" }, {}).info("from a child");
  t.match(lines.at(-1), { requestId: "r2", part: "x", msg: "from a child" });
  l.level = "debug";
  l.debug("now debug is on for this request");
  t.match(lines.at(-1), { level: 20, requestId: "r2" });
  t.equal(app.log.level, "info", "the parent's level is untouched");
  l.silent();
  l.fatal("fatal");
  l.trace("trace");
  t.match(lines.at(-1), { level: 60, msg: "fatal" }, "trace stays below this request's debug level");
});
