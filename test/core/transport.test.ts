// The in-process transport (core/transport.ts): the server-side interceptors
// run around the implementations, with fresh context values; errors reach the
// caller as ConnectErrors; a stream whose caller aborts is closed so every
// cleanup runs; deadlines abort the handler's signal.
import t from "tap";
import { setTimeout as sleep } from "node:timers/promises";
import { isMessage } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createContextKey, createContextValues, type ConnectRouter, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { ChatService, GenerateRequestSchema, StreamGenerateRequestSchema, type StreamGenerateResponse } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { createDirectTransport } from "../../src/core/transport.js";

const who = createContextKey<string>("nobody");

interface Log {
  seen: string[];
  finals: string[];
}

/** Records what it sees, puts the caller's authorization into the context, and notes when a stream is finished. */
function recorder(log: Log): Interceptor {
  return (next) => async (req) => {
    log.seen.push(`${req.method.name} ${req.stream ? "stream" : "unary"} ${req.header.get("authorization")} ${req.contextValues.get(who)}`);
    req.contextValues.set(who, req.header.get("authorization") ?? "");
    const res = await next(req);
    if (!res.stream) return res;
    const inner = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* inner;
        } finally {
          log.finals.push(req.method.name);
        }
      })(),
    };
  };
}

function setup(impl: { generate?: (req: unknown, ctx: HandlerContext) => unknown; streamGenerate?: (req: unknown, ctx: HandlerContext) => AsyncIterable<unknown> }) {
  const log: Log = { seen: [], finals: [] };
  const routes = (r: ConnectRouter) => {
    r.service(ChatService, impl as never);
  };
  const transport = createDirectTransport(routes, { interceptors: [recorder(log)] });
  return { log, chat: createClient(ChatService, transport), models: createClient(ModelService, transport) };
}

const text = (s: string) => ({ event: { case: "partDelta" as const, value: { candidateIndex: 0, index: 0, delta: { case: "text" as const, value: s } } } });

t.test("unary: interceptors, context values, normalised messages", async (t) => {
  let got: unknown;
  let ctxWho = "";
  const { log, chat } = setup({
    generate: (req, ctx) => {
      got = req;
      ctxWho = ctx.values.get(who);
      return { id: "r1", model: "m" };
    },
  });
  // Context values the caller passes stay on the caller's side, as over the network.
  const values = createContextValues().set(who, "forged");
  // Header names are case-insensitive, as on the wire.
  const res = await chat.generate({ input: { model: "m" } }, { headers: { Authorization: "Bearer k" }, contextValues: values });
  t.equal(res.id, "r1");
  t.ok(isMessage(res), "the response is a full message");
  t.equal(res.candidates.length, 0, "with its defaults");
  t.ok(isMessage(got, GenerateRequestSchema), "the implementation gets a full request message");
  t.equal(ctxWho, "Bearer k", "the implementation sees what the interceptor put in the context");
  t.same(log.seen, ["Generate unary Bearer k nobody"]);
});

t.test("errors reach the caller as ConnectErrors", async (t) => {
  const { chat, models } = setup({
    generate: (req) => {
      const model = (req as { input?: { model?: string } }).input?.model;
      if (model === "connect") throw new ConnectError("no such model", Code.NotFound);
      throw new TypeError("secret internals");
    },
  });
  const nf = await chat.generate({ input: { model: "connect" } }).catch((e: unknown) => e);
  t.ok(nf instanceof ConnectError);
  t.equal((nf as ConnectError).code, Code.NotFound);
  t.equal((nf as ConnectError).rawMessage, "no such model");
  const internal = await chat.generate({ input: { model: "other" } }).catch((e: unknown) => e);
  t.equal((internal as ConnectError).code, Code.Internal);
  t.equal((internal as ConnectError).rawMessage, "internal error", "an unexpected error's text is not passed on");
  const missing = await models.listModels({}).catch((e: unknown) => e);
  t.equal((missing as ConnectError).code, Code.Unimplemented, "a service that is not registered is unimplemented");
  const unimpl = await chat.countTokens({}).catch((e: unknown) => e);
  t.equal((unimpl as ConnectError).code, Code.Unimplemented, "so is a method the service leaves out");
});

t.test("streams: messages in order, errors, cleanup", async (t) => {
  const { log, chat } = setup({
    streamGenerate: async function* (req) {
      t.ok(isMessage(req, StreamGenerateRequestSchema), "the implementation gets the one request message");
      const model = (req as { input?: { model?: string } }).input?.model;
      yield text("a");
      yield text("b");
      if (model === "fail") throw new Error("boom");
    },
  });
  const got: string[] = [];
  for await (const e of chat.streamGenerate({ input: { model: "ok" } })) if (e.event.case === "partDelta" && e.event.value.delta.case === "text") got.push(e.event.value.delta.value);
  t.same(got, ["a", "b"]);
  t.same(log.finals, ["StreamGenerate"], "the interceptor's stream finished");
  const failed: StreamGenerateResponse[] = [];
  const err = await (async () => {
    for await (const e of chat.streamGenerate({ input: { model: "fail" } })) failed.push(e);
  })().catch((e: unknown) => e);
  t.equal(failed.length, 2, "messages before the failure arrive");
  t.equal((err as ConnectError).code, Code.Internal);
});

t.test("a caller that aborts while the stream is parked gets Canceled, and the stream's cleanup runs", async (t) => {
  let cleaned = false;
  let implSignal: AbortSignal | undefined;
  const { log, chat } = setup({
    streamGenerate: async function* (_req, ctx) {
      implSignal = ctx.signal;
      try {
        for (let i = 0; ; i++) yield text(String(i));
      } finally {
        cleaned = true;
      }
    },
  });
  const ac = new AbortController();
  const it = chat.streamGenerate({ input: { model: "m" } }, { signal: ac.signal })[Symbol.asyncIterator]();
  t.notOk((await it.next()).done);
  // The caller stops reading and goes away: nobody calls next() again.
  ac.abort(new Error("client disconnected"));
  await sleep(10);
  t.ok(implSignal?.aborted, "the implementation's signal aborted");
  t.ok(cleaned, "the implementation's finally ran");
  t.same(log.finals, ["StreamGenerate"], "so did the interceptor's");
  const after = await it.next().catch((e: unknown) => e);
  t.equal((after as ConnectError).code, Code.Canceled, "a later read fails with Canceled");
});

t.test("a timeout aborts the handler's signal with DeadlineExceeded", async (t) => {
  const { chat } = setup({
    generate: async (_req, ctx) => {
      t.ok((ctx.timeoutMs() ?? 0) > 0 && (ctx.timeoutMs() ?? 0) <= 20, "the implementation sees the time left");
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      throw ConnectError.from(ctx.signal.reason);
    },
  });
  const err = await chat.generate({}, { timeoutMs: 20 }).catch((e: unknown) => e);
  t.equal((err as ConnectError).code, Code.DeadlineExceeded);
});
