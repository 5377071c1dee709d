// gRPC server reflection on the h2c listener: `buf curl` lists every service
// and calls a method with no .proto files at hand, over both reflection
// protocols; the index answers files, symbols and unknown names.
import t from "tap";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import path from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { reflectionIndex, servicesOf } from "../../src/server/grpc-reflection.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

const run = promisify(execFile);
const buf = path.resolve(import.meta.dirname, "../../node_modules/.bin/buf");

let server: TestServer;
t.before(async () => {
  server = await startServer({ grpc: true });
});
t.teardown(() => server?.close());

const curl = (...args: string[]) => run(buf, ["curl", "--http2-prior-knowledge", ...args], { timeout: 60_000 }).then((r) => r.stdout);

t.test("buf curl lists every service, over v1 and v1alpha, without a key", async (t) => {
  const expected = servicesOf(server.deps.core.routes).map((s) => s.typeName);
  t.ok(expected.length >= 6, `the core registers its services (${expected.join(", ")})`);
  for (const protocol of ["grpc-v1", "grpc-v1alpha"]) {
    const listed = (await curl("--reflect-protocol", protocol, "--list-services", `http://${server.grpcAddress}`)).trim().split("\n");
    for (const name of expected) t.ok(listed.includes(name), `${protocol}: ${name}`);
  }
  const methods = (await curl("--list-methods", `http://${server.grpcAddress}`)).trim().split("\n");
  t.ok(methods.includes("omnigate.chat.v1.ChatService/StreamGenerate"), "every method");
});

t.test("buf curl calls a method described by reflection alone", async (t) => {
  const out = await curl("--protocol", "grpc", "-H", `authorization: Bearer ${ADMIN_KEY}`, "-d", '{"pageSize": 2}', `http://${server.grpcAddress}/omnigate.model.v1.ModelService/ListModels`);
  const body = JSON.parse(out) as { models: { id: string }[]; nextPageToken: string };
  t.equal(body.models.length, 2);
  t.ok(body.nextPageToken);
  const refused = await curl("--protocol", "grpc", "-d", "{}", `http://${server.grpcAddress}/omnigate.model.v1.ModelService/ListModels`).catch((e: { stderr: string }) => e.stderr);
  t.match(refused, /unauthenticated/, "the services themselves still need a key");
});

t.test("the index: files with their imports, symbols of every kind, and not-found", async (t) => {
  const answer = reflectionIndex([ChatService, ModelService]);
  const files = (a: ReturnType<typeof answer>) => (a.case === "fileDescriptorResponse" ? a.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b).name) : []);
  const chat = answer({ case: "fileContainingSymbol", value: "omnigate.chat.v1.ChatService" });
  t.equal(files(chat)[0], "omnigate/chat/v1/chat.proto", "the file first");
  t.ok(files(chat).includes("google/protobuf/struct.proto"), "then what it imports");
  t.same(files(answer({ case: "fileContainingSymbol", value: ".omnigate.chat.v1.ChatService.Generate" }))[0], "omnigate/chat/v1/chat.proto", "a method, with a leading dot");
  t.same(files(answer({ case: "fileContainingSymbol", value: "omnigate.chat.v1.GenerationConfig" }))[0], "omnigate/chat/v1/chat.proto", "a message");
  t.same(files(answer({ case: "fileContainingSymbol", value: "omnigate.chat.v1.Role" }))[0], "omnigate/chat/v1/chat.proto", "an enum");
  t.same(files(answer({ case: "fileByFilename", value: "omnigate/model/v1/model.proto" }))[0], "omnigate/model/v1/model.proto", "a file by name");
  t.match(answer({ case: "fileByFilename", value: "nope.proto" }), { case: "errorResponse", value: { errorCode: Code.NotFound } });
  t.match(answer({ case: "fileContainingSymbol", value: "no.Such" }), { case: "errorResponse", value: { errorCode: Code.NotFound } });
  t.match(answer({ case: "allExtensionNumbersOfType", value: "omnigate.chat.v1.ChatInput" }), { case: "allExtensionNumbersResponse", value: { extensionNumber: [] } });
  t.match(answer({ case: "allExtensionNumbersOfType", value: "no.Such" }), { case: "errorResponse" });
  t.match(answer({ case: "fileContainingExtension", value: { containingType: "x", extensionNumber: 1 } as never }), { case: "errorResponse", value: { errorCode: Code.NotFound } });
  t.match(answer({ case: undefined }), { case: "errorResponse", value: { errorCode: Code.InvalidArgument } });
});
