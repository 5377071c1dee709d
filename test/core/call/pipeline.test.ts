// The call pipeline (core/call/pipeline.ts) with fake steps around it:
// authentication, admission, the service, settlement and the report, in that
// order; errors as ConnectErrors; a stream settled once, however it ends, and
// closed at once when its caller goes away. And the remote shape: the same
// services behind a Connect transport, reached with remoteClient.
import t from "tap";
import { isMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import { ChatService, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { Authenticator } from "../../../src/core/auth/authenticator.js";
import type { Call, CallInit, Principal } from "../../../src/core/call/call.js";
import { localClient, remoteClient } from "../../../src/core/call/client.js";
import { connectRoutes } from "../../../src/core/call/connect-routes.js";
import { createPipeline } from "../../../src/core/call/pipeline.js";
import type { ServiceImpl } from "../../../src/core/call/service.js";
import type { Admission, Ticket } from "../../../src/core/tenancy/admission.js";
import type { Outcome, Settlement } from "../../../src/core/tenancy/settlement.js";

const P: Principal = { keyId: "k1", name: "one", admin: false, formats: [], models: [], limits: { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 }, budget: 0 };

/** Knows "good" from its cache and "slow" only by asking. */
const auth: Authenticator = {
  cached: (s: string) => (s === "good" ? P : s === "slow" ? undefined : null),
  verify: async (s: string) => (s === "slow" ? P : undefined),
  invalidate: () => undefined,
} as unknown as Authenticator;

function setup(impl: Partial<ServiceImpl<typeof ChatService>>, opts: { refuse?: ConnectError } = {}) {
  const steps: string[] = [];
  const settled: Outcome[] = [];
  const reports: { method: string; code: Code | undefined }[] = [];
  const admission: Admission = {
    async admit(method, req, call, started) {
      steps.push(`admit ${method.name} ${call.principal.keyId} ${call.format}`);
      if (opts.refuse) throw opts.refuse;
      return { call, method, req, started, meter: undefined, hold: undefined, release: undefined, tally: undefined } satisfies Ticket;
    },
  };
  const settlement: Settlement = {
    async settle(_t, outcome) {
      steps.push("settle");
      settled.push(outcome);
    },
    refused(method: DescMethod, _req, _call, err) {
      steps.push(`refused ${method.name} ${err.code}`);
    },
  };
  const pipeline = createPipeline({ auth, admission, settlement, observe: (m, e, s) => (t.ok(s >= 0), reports.push({ method: m.name, code: e?.code })) });
  return { steps, settled, reports, pipeline, chat: localClient(ChatService, impl, pipeline) };
}

const init = (over: Partial<CallInit> = {}): CallInit => ({ apiKey: "good", format: "messages", requestId: "rid", urlBase: "http://gw", signal: new AbortController().signal, ...over });
const text = (s: string) => ({ event: { case: "partDelta" as const, value: { candidateIndex: 0, index: 0, delta: { case: "text" as const, value: s } } } });
const codeOf = (e: unknown) => (e as ConnectError).code;

t.test("unary: the steps in order, the Call the service sees, messages made", async (t) => {
  let seen: { req: unknown; call: Call } | undefined;
  const { steps, settled, reports, chat } = setup({
    generate: (req, call) => {
      seen = { req, call };
      steps.push("service");
      return { id: "r1", model: "m" };
    },
  });
  const res = await chat.generate({ input: { model: "m" } }, init());
  t.ok(isMessage(res) && res.id === "r1", "the answer is a message");
  t.ok(isMessage(seen!.req), "the request is a message");
  t.match(seen!.call, { principal: { keyId: "k1" }, format: "messages", requestId: "rid", urlBase: "http://gw" });
  t.same(steps, ["admit Generate k1 messages", "service", "settle"]);
  t.ok(settled[0]!.res && !settled[0]!.error, "settled with the response");
  t.same(reports, [{ method: "Generate", code: undefined }]);

  // A key the cache does not know is verified.
  await chat.generate({}, init({ apiKey: "slow" }));
  // A service calling on a caller's behalf passes its principal: no key needed.
  await chat.generate({}, init({ apiKey: undefined, principal: { ...P, keyId: "inner" } }));
  t.equal(seen!.call.principal.keyId, "inner");
});

t.test("unary: refusals and failures, as ConnectErrors", async (t) => {
  const { steps, settled, reports, chat } = setup({
    generate: (req) => {
      if (req.input?.model === "boom") throw new Error("secret detail");
      throw new ConnectError("nope", Code.FailedPrecondition);
    },
  });
  let err = await chat.generate({}, init({ apiKey: undefined })).catch((e: unknown) => e);
  t.match(err, { code: Code.Unauthenticated, rawMessage: "missing API key" });
  err = await chat.generate({}, init({ apiKey: "bad" })).catch((e: unknown) => e);
  t.match(err, { code: Code.Unauthenticated, rawMessage: "invalid API key" });
  t.same(steps, [], "nothing runs for an unauthenticated call");

  err = await chat.generate({}, init()).catch((e: unknown) => e);
  t.equal(codeOf(err), Code.FailedPrecondition, "a service's ConnectError passes");
  t.equal(settled.at(-1)!.error?.code, Code.FailedPrecondition, "and is settled");
  err = await chat.generate({ input: { model: "boom" } }, init()).catch((e: unknown) => e);
  t.match(err, { code: Code.Internal, rawMessage: "internal error" }, "anything else is internal, its text kept back");
  t.equal(await chat.countTokens({}, init()).catch(codeOf), Code.Unimplemented, "a method without an implementation");
  t.same(
    reports.map((r) => r.code),
    [Code.Unauthenticated, Code.Unauthenticated, Code.FailedPrecondition, Code.Internal, Code.Unimplemented],
    "every call is reported once",
  );

  const refusing = setup({ generate: () => t.fail("the service must not run") as never }, { refuse: new ConnectError("over", Code.ResourceExhausted) });
  t.equal(await refusing.chat.generate({}, init()).catch(codeOf), Code.ResourceExhausted);
  t.same(refusing.steps, ["admit Generate k1 messages", "refused Generate 8"], "a refusal is recorded, not settled");
});

t.test("streams: opened on the first next(), settled once at the end", async (t) => {
  const { steps, settled, reports, chat } = setup({
    async *streamGenerate() {
      steps.push("service");
      yield text("a");
      yield text("b");
    },
  });
  const stream = chat.streamGenerate({}, init());
  t.same(steps, [], "nothing before the first next()");
  const got: StreamGenerateResponse[] = [];
  for await (const m of stream) got.push(m);
  t.same(
    got.map((m) => (m.event.case === "partDelta" && m.event.value.delta.case === "text" ? m.event.value.delta.value : "")),
    ["a", "b"],
  );
  t.ok(isMessage(got[0]!), "messages are made");
  t.same(steps, ["admit StreamGenerate k1 messages", "service", "settle"]);
  t.same(settled, [{ res: undefined, error: undefined, canceled: undefined }], "completed");
  t.same(reports, [{ method: "StreamGenerate", code: undefined }]);

  const refused = chat.streamGenerate({}, init({ apiKey: "bad" }));
  const err = await refused[Symbol.asyncIterator]()
    .next()
    .catch((e: unknown) => e);
  t.equal(codeOf(err), Code.Unauthenticated, "errors up front come from the first next()");
});

t.test("streams: a failure, a reader that stops, a caller that goes away", async (t) => {
  let cleanups = 0;
  let parked: (() => void) | undefined;
  const { settled, reports, chat } = setup({
    async *streamGenerate(req) {
      try {
        yield text("a");
        if (req.input?.model === "fail") throw new ConnectError("upstream broke", Code.Unavailable);
        if (req.input?.model === "endless") for (;;) yield text("more");
        await new Promise<void>((resolve) => (parked = resolve));
        yield text("never");
      } finally {
        cleanups++;
      }
    },
  });

  const failing = chat.streamGenerate({ input: { model: "fail" } }, init())[Symbol.asyncIterator]();
  await failing.next();
  t.equal(await failing.next().catch(codeOf), Code.Unavailable);
  t.equal(settled.at(-1)!.error?.code, Code.Unavailable, "settled with the error");

  const stopped = chat.streamGenerate({}, init())[Symbol.asyncIterator]();
  await stopped.next();
  const pending = stopped.next();
  parked!();
  await pending;
  await stopped.return!();
  t.equal(settled.at(-1)!.canceled, true, "a reader that stops early: canceled");

  // The caller reads once, then goes away: nobody calls next() again.
  const ac = new AbortController();
  const gone = chat.streamGenerate({ input: { model: "endless" } }, init({ signal: ac.signal }))[Symbol.asyncIterator]();
  await gone.next();
  ac.abort(new Error("client went away"));
  await new Promise((r) => setTimeout(r, 10));
  t.equal(cleanups, 3, "every stream's cleanup ran, the abandoned one's without another read");
  t.equal(await gone.next().catch(codeOf), Code.Canceled, "a later read fails with Canceled");
  t.equal(settled.length, 3, "each stream settled exactly once");
  t.equal(settled.at(-1)!.canceled, true);
  t.same(
    reports.map((r) => r.code),
    [Code.Unavailable, Code.Canceled, Code.Canceled],
  );
});

t.test("remote: the same services over a Connect transport, format core", async (t) => {
  let seen: Call | undefined;
  const { pipeline, steps } = setup({});
  const impl: Partial<ServiceImpl<typeof ChatService>> = {
    generate: (_req, call) => {
      seen = call;
      return { id: "remote" };
    },
    async *streamGenerate() {
      yield text("x");
    },
  };
  const transport = createRouterTransport(connectRoutes([{ service: ChatService, impl } as never], pipeline));
  const chat = remoteClient(ChatService, transport);
  const res = await chat.generate({}, init({ format: "messages", requestId: "r-7" }));
  t.equal(res.id, "remote");
  t.match(seen, { principal: { keyId: "k1" }, format: "core", requestId: "r-7" }, "a remote caller cannot claim a format");
  t.same(steps, ["admit Generate k1 core", "settle"]);
  const got = [];
  for await (const m of chat.streamGenerate({}, init())) got.push(m);
  t.equal(got.length, 1);
  t.equal(await chat.generate({}, init({ apiKey: "bad" })).catch(codeOf), Code.Unauthenticated);
});
