// A refused request is logged at info (the default level) with the error's
// type, message and field as its client saw them, in every format, and never
// with the key or the body it sent.
import t from "tap";
import type { InjectOptions } from "fastify";
import { rmSync } from "node:fs";
import { configSchema } from "../../src/config.js";
import { ensureKeys } from "../../src/core/auth/bootstrap.js";
import { buildApp } from "../../src/server/app.js";
import { createDeps } from "../../src/server/deps.js";
import { createLogger } from "../../src/server/logger.js";
import { refusalOf } from "../../src/server/refusal-log.js";
import { ADMIN_KEY, tempDir } from "../helpers/app.js";

const lines: Record<string, any>[] = [];
const dataDir = tempDir();
const config = configSchema.parse({ port: 0, grpcPort: 0, dataDir, logLevel: "info", bootstrapKey: ADMIN_KEY });
const log = createLogger(config.logLevel, { write: (l: string) => void lines.push(JSON.parse(l)) });
const deps = await createDeps(config, { log });
await ensureKeys(deps.storage.keys, { bootstrapKey: ADMIN_KEY });
const app = await buildApp(deps);
t.teardown(async () => {
  await app.close();
  await deps.storage.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const refused = (requestId: string) => lines.find((l) => l.msg === "request refused" && l.requestId === requestId);

t.test("each format's refusal is logged with its type, message and field", async (t) => {
  const cases: [string, InjectOptions, { status: number } & Record<string, unknown>][] = [
    [
      "messages: a bad field",
      {
        method: "POST",
        url: "/v1/messages",
        headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" },
        payload: { model: "m", max_tokens: -1, messages: [{ role: "user", content: "secret words" }] },
      },
      { status: 400, refusal: { type: "invalid_request_error", message: /max_tokens/ } },
    ],
    [
      "messages: a wrong key",
      {
        method: "POST",
        url: "/v1/messages",
        headers: { "x-api-key": "sk-wrong-key-123", "anthropic-version": "2023-06-01" },
        payload: { model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] },
      },
      { status: 401, refusal: { type: "authentication_error" } },
    ],
    [
      "generate-content",
      {
        method: "POST",
        url: "/v1beta/models/gemini-2.5-flash:generateContent",
        headers: { "x-goog-api-key": ADMIN_KEY },
        payload: { contents: [{ parts: [{ text: "x" }] }], generationConfig: { temperature: 9 } },
      },
      { status: 400, refusal: { type: "INVALID_ARGUMENT", field: /temperature/ } },
    ],
    [
      "images",
      { method: "POST", url: "/v1/images/generations", headers: { authorization: `Bearer ${ADMIN_KEY}` }, payload: { model: "dall-e-2", prompt: "a cat", size: "7x7" } },
      { status: 400, refusal: { type: "invalid_request_error", field: "size" } },
    ],
    ["image-bot", { method: "POST", url: "/ib/submit/imagine", headers: { authorization: `Bearer ${ADMIN_KEY}` }, payload: {} }, { status: 400 }],
    ["an unserved path", { method: "POST", url: "/v1/nothing-here", headers: { authorization: `Bearer ${ADMIN_KEY}` }, payload: {} }, { status: 404, refusal: { message: /./ } }],
  ];
  for (const [name, req, want] of cases) {
    const res = await app.inject(req);
    t.equal(res.statusCode, want.status, `${name}: status`);
    const line = refused(res.headers["request-id"] as string);
    t.match(line, { level: 30, ...want }, `${name}: logged at info`);
    const text = JSON.stringify(line);
    t.notMatch(text, ADMIN_KEY, `${name}: no key`);
    t.notMatch(text, "secret words", `${name}: no body`);
  }
  const ok = await app.inject({ method: "GET", url: "/healthz" });
  t.notOk(refused(ok.headers["request-id"] as string), "a served request logs no refusal");
});

t.test("refusalOf reads every error shape, and nothing else", async (t) => {
  t.same(refusalOf('{"type":"error","error":{"type":"invalid_request_error","message":"m"}}'), { type: "invalid_request_error", message: "m" });
  t.same(refusalOf('{"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT","details":[{"fieldViolations":[{"field":"contents"}]}]}}'), {
    type: "INVALID_ARGUMENT",
    message: "m",
    field: "contents",
  });
  t.same(refusalOf('{"error":{"message":"m","type":"invalid_request_error","param":"size","code":"invalid_value"}}'), { type: "invalid_request_error", message: "m", field: "size" });
  t.same(refusalOf('{"code":21,"description":"bad prompt","result":null}'), { type: "21", message: "bad prompt" });
  t.same(refusalOf('[{"error":{"json":{"message":"too big","data":{"code":"PAYLOAD_TOO_LARGE"}}}}]'), { type: "PAYLOAD_TOO_LARGE", message: "too big" });
  t.equal(refusalOf("not json"), undefined);
  t.equal(refusalOf('{"ok":true}'), undefined);
  t.equal(refusalOf(undefined), undefined);
  t.equal(refusalOf(Buffer.from('{"message":"x"}'))?.message, "x");
  t.equal(refusalOf(JSON.stringify({ error: { message: "a".repeat(600) } }))!.message!.length, 501, "long messages are cut");
});
