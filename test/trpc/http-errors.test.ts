// What fastify refuses before tRPC runs (src/trpc/http-errors.ts) reaches
// @trpc/client as a tRPC error: a body over bodyLimit is PAYLOAD_TOO_LARGE
// with 413, for every call of a batch, in tRPC's envelope.
import t from "tap";
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/router.js";
import { trpcError } from "../../src/trpc/http-errors.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

const big = "x".repeat(5000);
const headers = { authorization: `Bearer ${ADMIN_KEY}` };

t.test("a body over the limit", async (t) => {
  const s = await startServer({ config: { bodyLimitBytes: 2000 } });
  t.teardown(() => s.close());
  const batch = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${s.baseUrl}/trpc`, headers })] });
  const input = { model: "local-chat", messages: [{ role: "user" as const, content: big }] };
  // Two calls in one batch request.
  const errors = await Promise.all([batch.chat.generate.mutate(input), batch.chat.generate.mutate({ ...input, maxTokens: 5 })].map((p) => p.catch((e: unknown) => e)));
  for (const e of errors) {
    t.ok(e instanceof TRPCClientError, "a TRPCClientError");
    const err = e as TRPCClientError<AppRouter>;
    t.same([err.data?.code, err.data?.httpStatus, err.data?.path], ["PAYLOAD_TOO_LARGE", 413, "chat.generate"]);
  }

  const single = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${s.baseUrl}/trpc`, headers })] });
  const one = (await single.chat.generate.mutate(input).catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
  t.same([one instanceof TRPCClientError, one.data?.code, one.data?.httpStatus], [true, "PAYLOAD_TOO_LARGE", 413], "without batching too");

  const res = await fetch(`${s.baseUrl}/trpc/chat.generate,chat.generate?batch=1`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ 0: input }) });
  t.equal(res.status, 413);
  const body = (await res.json()) as { error: { code: number; message: string; data: Record<string, unknown> } }[];
  t.equal(body.length, 2, "one error per call");
  t.match(body[0], { error: { code: -32013, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path: "chat.generate" } } });
  t.notOk("stack" in body[0]!.error.data, "no stack trace");

  const xml = await fetch(`${s.baseUrl}/trpc/chat.generate`, { method: "POST", headers: { ...headers, "content-type": "application/xml" }, body: "<a/>" });
  t.equal(xml.status, 415);
  t.match(await xml.json(), { error: { data: { code: "UNSUPPORTED_MEDIA_TYPE", httpStatus: 415 } } }, "a media type no parser takes");

  // Within the limit, tRPC answers as ever.
  const ok = await batch.chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "hi" }] });
  t.equal(ok.text, "You said: hi");
});

t.test("fastify's statuses as tRPC codes", async (t) => {
  const e = (statusCode: number | undefined, message = "m") => trpcError(Object.assign(new Error(message), { statusCode, code: "X", name: "FastifyError" }) as never);
  t.same(
    [413, 415, 408, 400, 431].map((s) => e(s).code),
    ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "TIMEOUT", "BAD_REQUEST", "BAD_REQUEST"],
  );
  const internal = e(500, "secret");
  t.same([internal.code, internal.message], ["INTERNAL_SERVER_ERROR", "internal error"], "a server fault does not show its text");
  t.equal(e(undefined).code, "INTERNAL_SERVER_ERROR");
});
