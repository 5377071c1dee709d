// /ib wire <-> neutral messages, table-tested without a server.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Action, AccountMode, AccountSchema, BotType, Dimensions, Status, SubmitResultSchema, TaskSchema } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { FacadeError, fromConnectError } from "../../../src/facades/image-bot/errors.js";
import { Code, coreError } from "../../../src/core/errors.js";
import {
  fromCoreAccount,
  fromCoreResult,
  fromCoreTask,
  fromDataUrl,
  progressText,
  toCoreAccountUpdate,
  toCoreAction,
  toCoreBlend,
  toCoreImagine,
  toCoreModal,
  toCoreSwap,
} from "../../../src/facades/image-bot/translate.js";

const PNG_B64 = "iVBORw0KGgo=";

const refused = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof FacadeError) return `${e.wire.status} ${e.wire.body.code} ${e.wire.body.description}`;
    throw e;
  }
  return "accepted";
};

t.test("data URLs: prefix, MIME type, base64", async (t) => {
  const f = fromDataUrl(`data:image/PNG;base64,${PNG_B64}`, "base64");
  t.equal(f.mimeType, "image/png");
  t.equal(f.filename, "base64");
  t.same(f.source.case === "data" ? [...f.source.value.slice(0, 4)] : [], [0x89, 0x50, 0x4e, 0x47]);
  t.equal(
    refused(() => fromDataUrl(PNG_B64, "base64Array[0]")),
    "400 21 base64Array[0] must be a base64 image with its data-URL prefix, e.g. data:image/png;base64,...",
  );
  t.equal(
    refused(() => fromDataUrl("data:image/png;base64,", "x")),
    "400 21 x has no image data after its prefix",
  );
  t.equal(
    refused(() => fromDataUrl("data:image/png;base64,@@not*base64", "x")),
    "400 21 x is not valid base64",
  );
  t.equal(
    refused(() => fromDataUrl("data:image/png;base64,A", "x")),
    "400 21 x is not valid base64",
  );
  t.equal(
    refused(() => fromDataUrl("data:image/png;base64,iVBO\nRw0K Ggo=", "x")),
    "accepted",
    "whitespace inside base64 is tolerated",
  );
});

t.test("submit bodies to the core", async (t) => {
  const imagine = toCoreImagine({
    prompt: "cat",
    botType: "NIJI_JOURNEY",
    base64Array: [`data:image/png;base64,${PNG_B64}`],
    notifyHook: null,
    state: "s1",
    accountFilter: { modes: ["RELAX"], remark: "x", remix: true },
  });
  t.match(imagine, { action: Action.IMAGINE, prompt: "cat", botType: BotType.ANIME_BOT, clientState: "s1", notifyHook: "", accountFilter: { modes: [AccountMode.RELAX], remark: "x", remix: true } });
  t.equal(imagine.images[0]!.filename, "base64Array[0]");
  t.equal(imagine.accountFilter!.remixAutoConsidered, undefined, "unset booleans stay unset");
  t.match(toCoreBlend({ base64Array: [`data:image/png;base64,${PNG_B64}`, `data:image/png;base64,${PNG_B64}`], dimensions: "PORTRAIT" }), {
    action: Action.BLEND,
    dimensions: Dimensions.PORTRAIT,
    botType: BotType.PRIMARY_BOT,
  });
  t.equal(
    refused(() => toCoreBlend({ base64Array: Array(6).fill(`data:image/png;base64,${PNG_B64}`) })),
    "400 21 base64Array: blend takes 2 to 5 images; got 6",
  );
  t.equal(
    refused(() => toCoreBlend({ base64Array: [`data:image/png;base64,${PNG_B64}`] })),
    "400 21 base64Array: blend takes 2 to 5 images; got 1",
  );
  t.same(
    toCoreSwap({ sourceBase64: `data:image/png;base64,${PNG_B64}`, targetBase64: `data:image/jpeg;base64,${PNG_B64}` }).images.map((i) => [i.filename, i.mimeType]),
    [
      ["sourceBase64", "image/png"],
      ["targetBase64", "image/jpeg"],
    ],
  );
  t.match(toCoreAction({ taskId: "1", customId: "MJ::JOB::upsample::1::h", chooseSameChannel: true }), { taskId: "1", customId: "MJ::JOB::upsample::1::h", chooseSameChannel: true });
  t.match(toCoreModal({ taskId: "2", prompt: null, maskBase64: `data:image/png;base64,${PNG_B64}` }), { taskId: "2", prompt: "", mask: { filename: "maskBase64" } });
});

t.test("account updates: only the fields given, midjourney-proxy names too", async (t) => {
  const r = toCoreAccountUpdate("a", { enable: false, coreSize: 2, remark: "x" });
  t.same(r.updateMask, ["remark", "enabled", "concurrency"]);
  t.match(r.account, { id: "a", enabled: false, concurrency: 2, remark: "x" });
  t.equal(
    refused(() => toCoreAccountUpdate("a", {})),
    "400 21 the body names no account field to update",
  );
});

t.test("the task object: spec 2.2 fields exactly, epoch-ms times, progress strings", async (t) => {
  const task = create(TaskSchema, {
    id: "1700000000000123",
    action: Action.REROLL,
    status: Status.IN_PROGRESS,
    prompt: "猫",
    promptEn: "cat",
    description: "/up 1 R",
    imageUrl: "http://x/files/f",
    progress: 45,
    clientState: "s",
    properties: { finalPrompt: "cat", actionDetail: "REROLL" },
    submitTime: timestampFromMs(1700000000000),
    startTime: timestampFromMs(1700000001234),
    buttons: [{ customId: "c", emoji: "e", label: "l", style: 2, type: 2 }],
    accountId: "not on the wire",
  });
  const w = fromCoreTask(task);
  t.same(
    Object.keys(w).sort(),
    ["action", "buttons", "description", "failReason", "finishTime", "id", "imageUrl", "progress", "prompt", "promptEn", "properties", "state", "startTime", "status", "submitTime"].sort(),
  );
  t.match(w, { id: "1700000000000123", action: "IMAGINE", status: "IN_PROGRESS", progress: "45%", state: "s", submitTime: 1700000000000, startTime: 1700000001234, finishTime: null, failReason: "" });
  t.same(w.properties, { finalPrompt: "cat", actionDetail: "REROLL" });
  t.equal(progressText(Status.FAILURE, 60), "");
  t.equal(progressText(Status.SUCCESS, 100), "100%");
  t.equal(progressText(Status.NOT_START, 0), "0%");
  t.equal(fromCoreTask(create(TaskSchema, { action: Action.INPAINT })).action, "VARIATION");
});

t.test("envelopes and accounts", async (t) => {
  t.same(fromCoreResult(create(SubmitResultSchema, { code: 22, description: "q", taskId: "9", properties: { numberOfQueues: 2 } })), {
    code: 22,
    description: "q",
    properties: { numberOfQueues: 2 },
    result: "9",
  });
  t.same(fromCoreResult(create(SubmitResultSchema, { code: 24, description: "none" })), { code: 24, description: "none", properties: {}, result: null });
  t.same(
    fromCoreAccount(
      create(AccountSchema, {
        id: "a",
        channel: "local",
        modes: [AccountMode.FAST, AccountMode.TURBO],
        botTypes: [BotType.ANIME_BOT],
        enabled: true,
        concurrency: 3,
        queueSize: 10,
        running: 1,
        queued: 2,
      }),
    ),
    {
      id: "a",
      channel: "local",
      channelId: "",
      instanceId: "",
      modes: ["FAST", "TURBO"],
      remark: "",
      remix: false,
      remixAutoSubmit: false,
      enabled: true,
      concurrency: 3,
      queueSize: 10,
      botTypes: ["ANIME_BOT"],
      running: 1,
      queued: 2,
      lastError: "",
      lastErrorTime: null,
    },
  );
});

t.test("the error table: ConnectError -> HTTP status and envelope code", async (t) => {
  const rows: [ReturnType<typeof coreError>, number, number, Record<string, unknown>][] = [
    [coreError(Code.InvalidArgument, "bad"), 400, 21, {}],
    [coreError(Code.FailedPrecondition, "not yet"), 400, 21, {}],
    [coreError(Code.InvalidArgument, "banned", { reason: "banned_prompt", metadata: { bannedWord: "w", promptEn: "p w" } }), 400, 21, { bannedWord: "w", promptEn: "p w" }],
    [coreError(Code.Unauthenticated, "no key"), 401, 21, {}],
    [coreError(Code.PermissionDenied, "nope"), 403, 21, {}],
    [coreError(Code.PermissionDenied, "used up", { reason: "budget_exhausted" }), 403, 25, {}],
    [coreError(Code.NotFound, "gone"), 404, 21, {}],
    [coreError(Code.ResourceExhausted, "slow down", { retryAfterMs: 2500 }), 429, 23, {}],
    [coreError(Code.Internal, "secret detail"), 500, 23, {}],
    [coreError(Code.Unavailable, "down"), 500, 23, {}],
  ];
  for (const [err, status, code, properties] of rows) {
    const w = fromConnectError(err);
    t.equal(w.status, status, err.rawMessage);
    t.equal(w.body.code, code, err.rawMessage);
    t.same(w.body.properties, properties);
    t.equal(w.body.result, null);
  }
  t.same(fromConnectError(coreError(Code.ResourceExhausted, "x", { retryAfterMs: 2500 })).headers, { "retry-after": "3" });
  t.notMatch(fromConnectError(coreError(Code.Internal, "secret detail")).body.description, /secret/, "internal text never reaches the client");
});
