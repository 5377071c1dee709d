// @trpc/client against the /trpc endpoint, typed with AppRouter.
import t from "tap";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/router.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server?.close());

const client = (key = ADMIN_KEY) => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })] });

t.test("models.list", async (t) => {
  const all = await client().models.list.query();
  t.ok(all.some((m) => m.id === "claude-sonnet-4-6" && m.capabilities.includes("chat")));
  const chat = await client().models.list.query({ capability: "chat" });
  t.ok(chat.length > 0 && chat.every((m) => m.capabilities.includes("chat")));
});

t.test("chat.generate", async (t) => {
  const res = await client().chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "hi from trpc" }], maxTokens: 64 });
  t.equal(res.text, "You said: hi from trpc");
  t.equal(res.finishReason, "stop");
  t.ok(res.usage.inputTokens > 0 && res.usage.outputTokens > 0);
  const cut = await client().chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "one two three four five six" }], maxTokens: 2 });
  t.equal(cut.finishReason, "max_tokens");
  t.equal(cut.usage.outputTokens, 2);
});

t.test("bad input gives BAD_REQUEST without a stack trace", async (t) => {
  const err = await client()
    .chat.generate.mutate({ model: "", messages: [] })
    .catch((e: unknown) => e);
  t.ok(err instanceof TRPCClientError);
  const e = err as TRPCClientError<AppRouter>;
  t.equal(e.data?.code, "BAD_REQUEST");
  t.equal(e.data?.httpStatus, 400);
  t.notOk((e.data as Record<string, unknown> | undefined)?.stack, "no stack trace");
});

t.test("text with half a surrogate pair is BAD_REQUEST (the neutral model cannot hold it)", async (t) => {
  const err = (await client()
    .chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "cut inside an emoji \ud83d" }] })
    .catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
  t.equal(err.data?.code, "BAD_REQUEST");
  t.match(err.message, /unpaired UTF-16 surrogate/);
  const whole = await client().chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "an emoji \ud83d\ude00" }] });
  t.equal(whole.text, "You said: an emoji \ud83d\ude00", "a whole pair is served");
});

t.test("a bad key gives UNAUTHORIZED", async (t) => {
  const err = (await client("sk-wrong")
    .models.list.query()
    .catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
  t.equal(err.data?.code, "UNAUTHORIZED");
  t.equal(err.data?.httpStatus, 401);
});

t.test("core errors map to tRPC codes", async (t) => {
  const { toTrpcError } = await import("../../src/trpc/errors.js");
  const { Code, ConnectError } = await import("@connectrpc/connect");
  t.equal(toTrpcError(new ConnectError("x", Code.NotFound)).code, "NOT_FOUND");
  t.equal(toTrpcError(new ConnectError("x", Code.ResourceExhausted)).code, "TOO_MANY_REQUESTS");
  const internal = toTrpcError(new ConnectError("secret upstream text", Code.Internal));
  t.equal(internal.code, "INTERNAL_SERVER_ERROR");
  t.equal(internal.message, "internal error", "internal text does not leak");
  t.equal(toTrpcError(new Error("boom")).code, "INTERNAL_SERVER_ERROR");
});
