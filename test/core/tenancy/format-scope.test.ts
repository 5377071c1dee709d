// A call's format is where it entered: a remote Connect, gRPC or gRPC-Web
// caller is "core" whatever headers it sends, so a key scoped to wire formats
// cannot reach the core services by claiming one.
import t from "tap";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ChatService, Role } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import { ModelService } from "../../../gen/omnigate/model/v1/model_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer({ grpc: true });
});
t.teardown(() => server?.close());

const admin = () => createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
async function newKey(formats: string[]) {
  const res = await admin().createKey({ key: { name: `scoped-${formats.join("-")}`, formats } }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  return { id: res.key!.id, secret: res.secret };
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );

const transports: [string, () => Transport][] = [
  ["Connect over HTTP/1.1", () => createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["Connect over h2c", () => createConnectTransport({ baseUrl: `http://${server.grpcAddress}`, httpVersion: "2" })],
  ["gRPC over h2c", () => createGrpcTransport({ baseUrl: `http://${server.grpcAddress}` })],
];

const text = (s: string) => ({ kind: { case: "text" as const, value: { text: s } } });

t.test("a key scoped to wire formats is refused on every remote RPC, whatever format header it sends", async (t) => {
  const scoped = await newKey(["messages", "images", "image-bot", "video"]);
  const forged = { authorization: `Bearer ${scoped.secret}`, "omnigate-format": "messages" };
  for (const [name, make] of transports) {
    const tr = make();
    const calls: [string, () => Promise<unknown>][] = [
      ["ChatService/Generate", () => createClient(ChatService, tr).generate({ input: { model: "local-chat", turns: [{ role: Role.USER, parts: [text("hi")] }] } }, { headers: forged })],
      [
        "ChatService/StreamGenerate",
        async () => {
          for await (const _ of createClient(ChatService, tr).streamGenerate({ input: { model: "local-chat", turns: [{ role: Role.USER, parts: [text("hi")] }] } }, { headers: forged }));
        },
      ],
      ["ImageBotService/SubmitTask", () => createClient(ImageBotService, tr).submitTask({ action: Action.IMAGINE, prompt: "a cat" }, { headers: { ...forged, "omnigate-format": "image-bot" } })],
      [
        "ImageService/GenerateImages",
        () => createClient(ImageService, tr).generateImages({ prompt: "a cat", options: { model: "dall-e-2", n: 1 } }, { headers: { ...forged, "omnigate-format": "images" } }),
      ],
      ["VideoService/CreateVideo", () => createClient(VideoService, tr).createVideo({ prompt: "a cat", model: "sora-2" }, { headers: { ...forged, "omnigate-format": "video" } })],
      ["ModelService/ListModels", () => createClient(ModelService, tr).listModels({}, { headers: forged })],
    ];
    for (const [method, call] of calls) {
      const err = await failure(call());
      t.equal(err?.code, Code.PermissionDenied, `${name}: ${method} is refused`);
      t.equal(err?.findDetails(ErrorDetailSchema)[0]?.reason, "format_not_allowed", `${name}: ${method} names the format scope`);
    }
  }
  const usage = await admin().queryUsage({ keyId: scoped.id }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.ok(usage.records.length > 0, "the refusals are recorded");
  t.same([...new Set(usage.records.map((r) => r.format))], ["core"], "every record carries the format the call entered on, not the forged one");
});

t.test("the same key works on its own wire format, recorded as that format", async (t) => {
  const scoped = await newKey(["messages"]);
  const res = await fetch(`${server.baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": scoped.secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 32, messages: [{ role: "user", content: "hello" }] }),
  });
  t.equal(res.status, 200);
  const usage = await admin().queryUsage({ keyId: scoped.id }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.same(
    usage.records.map((r) => [r.format, r.status]),
    [["messages", "ok"]],
  );
});

t.test("a key scoped to core reaches every remote RPC", async (t) => {
  const core = await newKey(["core"]);
  for (const [name, make] of transports) {
    const models = await createClient(ModelService, make()).listModels({}, { headers: { authorization: `Bearer ${core.secret}` } });
    t.ok(models.models.length > 0, `${name}: listed`);
  }
  const res = await fetch(`${server.baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": core.secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 32, messages: [{ role: "user", content: "hello" }] }),
  });
  t.equal(res.status, 403, "but not a wire format it was not given");
});
