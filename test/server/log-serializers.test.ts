import t from "tap";
import { Writable } from "node:stream";
import Fastify from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { coreError } from "../../src/core/errors.js";
import { serializeError } from "../../src/server/log-serializers.js";

t.test("a ConnectError is logged as its code, message, reason and field, without its details' schema", async (t) => {
  const e = coreError(Code.InvalidArgument, "max_tokens must be positive", { reason: "invalid_field", field: "max_tokens" });
  const s = serializeError(e);
  t.match(s, { type: "ConnectError", code: "InvalidArgument", message: "max_tokens must be positive", reason: "invalid_field", field: "max_tokens" });
  t.match(s.stack, /ConnectError/);
  t.notOk("details" in s, "no details");
  t.notOk(JSON.stringify(s).includes("typeName"), "no descriptor anywhere");
});

t.test("a ConnectError without a detail, and causes, serialised in turn", async (t) => {
  const inner = new ConnectError("upstream said no", Code.Unavailable);
  const outer = coreError(Code.Internal, "the call failed", { cause: inner });
  const s = serializeError(outer);
  t.match(s, { code: "Internal", message: "the call failed", cause: { type: "ConnectError", code: "Unavailable", message: "upstream said no" } });
  t.notOk("reason" in (s.cause as object), "no detail, no reason");
  const plainCause = serializeError(coreError(Code.Internal, "x", { cause: "a string" }));
  t.equal(plainCause.cause, "a string");
});

t.test("other errors are logged as pino logs them", async (t) => {
  const e = Object.assign(new TypeError("bad"), { code: "E_BAD" });
  t.match(serializeError(e), { type: "TypeError", message: "bad", code: "E_BAD" });
  t.equal(serializeError("not an error" as unknown as Error), "not an error" as never);
});

t.test("through pino: a logged ConnectError line stays small", async (t) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n")) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const app = Fastify({ logger: { level: "warn", stream, serializers: { err: serializeError } } });
  t.teardown(() => app.close());
  app.log.warn({ err: coreError(Code.Canceled, "the request was canceled", { reason: "canceled" }) }, "stream failed");
  t.equal(lines.length, 1);
  t.match(lines[0], { err: { type: "ConnectError", code: "Canceled", reason: "canceled" }, msg: "stream failed" });
  t.ok(JSON.stringify(lines[0]).length < 1500, `one short line (${JSON.stringify(lines[0]).length} characters)`);
});

t.test("a cycle of causes ends", async (t) => {
  const a = new ConnectError("a", Code.Internal);
  const b = new ConnectError("b", Code.Internal, undefined, undefined, a);
  (a as { cause: unknown }).cause = b;
  let depth = 0;
  for (let c: unknown = serializeError(a); c && typeof c === "object" && "cause" in c; c = (c as { cause: unknown }).cause) depth++;
  t.equal(depth, 5, "five causes deep, then no more");
});
