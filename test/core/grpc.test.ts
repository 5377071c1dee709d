// A stock @grpc/grpc-js client (service definitions loaded from proto/ with
// @grpc/proto-loader) against the h2c listener.
import t from "tap";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

const root = path.resolve(import.meta.dirname, "../..");
const pkgDef = protoLoader.loadSync(["omnigate/model/v1/model.proto", "omnigate/chat/v1/chat.proto"], {
  includeDirs: [path.join(root, "proto")],
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const loaded = grpc.loadPackageDefinition(pkgDef) as any;

let server: TestServer;
let models: grpc.Client & Record<string, Function>;
let chat: grpc.Client & Record<string, Function>;

const auth = () => {
  const md = new grpc.Metadata();
  md.set("authorization", `Bearer ${ADMIN_KEY}`);
  return md;
};

t.before(async () => {
  server = await startServer({ grpc: true });
  models = new loaded.omnigate.model.v1.ModelService(server.grpcAddress, grpc.credentials.createInsecure());
  chat = new loaded.omnigate.chat.v1.ChatService(server.grpcAddress, grpc.credentials.createInsecure());
});
t.teardown(async () => {
  models?.close();
  chat?.close();
  await server?.close();
});

function unary<T>(client: Record<string, Function>, method: string, req: object, md = auth()): Promise<T> {
  return new Promise((resolve, reject) => client[method]!(req, md, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res))));
}

t.test("ListModels", async (t) => {
  const res = await unary<{ models: { id: string; capabilities: string[] }[] }>(models, "listModels", {});
  t.ok(res.models.length > 0, "models listed");
  t.ok(res.models.some((m) => m.id === "claude-sonnet-4-6" && m.capabilities.includes("CAPABILITY_CHAT")));
});

t.test("ListModels pages with page_token", async (t) => {
  const first = await unary<{ models: { id: string }[]; nextPageToken: string }>(models, "listModels", { pageSize: 2 });
  t.equal(first.models.length, 2);
  t.not(first.nextPageToken, "");
  const second = await unary<{ models: { id: string }[] }>(models, "listModels", { pageSize: 2, pageToken: first.nextPageToken });
  t.not(second.models[0]!.id, first.models[0]!.id, "second page starts after the first");
});

t.test("StreamGenerate streams events in order", async (t) => {
  const call = chat.streamGenerate!(
    { input: { model: "claude-sonnet-4-6", turns: [{ role: "ROLE_USER", parts: [{ text: { text: "stream me a few words please" } }] }] } },
    auth(),
  ) as grpc.ClientReadableStream<{ event: string; [k: string]: unknown }>;
  const kinds: string[] = [];
  let text = "";
  for await (const ev of call) {
    kinds.push(ev.event);
    if (ev.event === "partDelta") text += (ev.partDelta as { text?: string }).text ?? "";
  }
  t.equal(kinds[0], "start");
  t.ok(kinds.filter((k) => k === "partDelta").length > 1, "several deltas");
  t.ok(kinds.includes("finish"));
  t.equal(kinds.at(-1), "usage");
  t.equal(text, "You said: stream me a few words please");
});

t.test("an invalid request is answered with INVALID_ARGUMENT", async (t) => {
  const err = await unary(chat, "generate", { input: { model: "", turns: [] } }).catch((e: grpc.ServiceError) => e);
  t.equal((err as grpc.ServiceError).code, grpc.status.INVALID_ARGUMENT);
  t.match((err as grpc.ServiceError).details, /model/);
});

t.test("a missing key is answered with UNAUTHENTICATED", async (t) => {
  const err = await unary(models, "listModels", {}, new grpc.Metadata()).catch((e: grpc.ServiceError) => e);
  t.equal((err as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
});

t.test("an unknown method is answered with UNIMPLEMENTED", async (t) => {
  const client = new grpc.Client(server.grpcAddress!, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const err = await new Promise<grpc.ServiceError>((resolve) =>
    client.makeUnaryRequest(
      "/omnigate.model.v1.ModelService/NoSuchMethod",
      (x: Buffer) => x,
      (x: Buffer) => x,
      Buffer.alloc(0),
      auth(),
      (e) => resolve(e as grpc.ServiceError),
    ),
  );
  t.equal(err.code, grpc.status.UNIMPLEMENTED);
});
