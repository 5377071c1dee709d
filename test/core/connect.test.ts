// Connect (HTTP/1.1) and gRPC-Web clients against the main listener, and the
// Connect protocol over HTTP/2 against the h2c listener.
import t from "tap";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { ChatService, Role } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { ErrorDetailSchema } from "../../gen/omnigate/common/v1/common_pb.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer({ grpc: true });
});
t.teardown(() => server?.close());

const headers = { authorization: `Bearer ${ADMIN_KEY}` };

const transports: [string, () => Transport][] = [
  ["connect over HTTP/1.1", () => createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["connect over h2c", () => createConnectTransport({ baseUrl: `http://${server.grpcAddress}`, httpVersion: "2" })],
  ["gRPC over h2c", () => createGrpcTransport({ baseUrl: `http://${server.grpcAddress}` })],
];

for (const [name, make] of transports) {
  t.test(name, async (t) => {
    const transport = make();
    const models = createClient(ModelService, transport);
    const chat = createClient(ChatService, transport);

    const list = await models.listModels({}, { headers });
    t.ok(
      list.models.find((m) => m.id === "gemini-2.5-flash"),
      "lists models",
    );

    const got = await models.getModel({ id: "models/gemini-2.5-flash" }, { headers });
    t.equal(got.model?.id, "gemini-2.5-flash", "GetModel accepts the models/ prefix");

    const input = { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: "hello core" } } }] }] };
    const one = await chat.generate({ input }, { headers });
    const part = one.candidates[0]?.parts[0]?.kind;
    t.equal(part?.case === "text" ? part.value.text : "", "You said: hello core");
    t.ok((one.usage?.inputTokens ?? 0n) > 0n && (one.usage?.outputTokens ?? 0n) > 0n, "usage counted");

    let streamed = "";
    let events = 0;
    for await (const ev of chat.streamGenerate({ input }, { headers })) {
      events++;
      if (ev.event.case === "partDelta" && ev.event.value.delta.case === "text") streamed += ev.event.value.delta.value;
    }
    t.equal(streamed, "You said: hello core");
    t.ok(events > 4);

    const counted = await chat.countTokens({ input }, { headers });
    t.equal(counted.inputTokens, one.usage?.inputTokens, "count_tokens agrees with usage");

    const bad = await chat.generate({ input: { model: "", turns: [] } }, { headers }).catch((e: unknown) => ConnectError.from(e));
    t.equal((bad as ConnectError).code, Code.InvalidArgument);
    t.equal((bad as ConnectError).findDetails(ErrorDetailSchema)[0]?.field, "model", "the detail names the field");

    const unauth = await models.listModels({}, { headers: { authorization: "Bearer nope" } }).catch((e: unknown) => ConnectError.from(e));
    t.equal((unauth as ConnectError).code, Code.Unauthenticated);

    const missing = await models.getModel({ id: "no-such-model" }, { headers }).catch((e: unknown) => ConnectError.from(e));
    t.equal((missing as ConnectError).code, Code.NotFound);
  });
}

t.test("the Connect JSON protocol works with plain HTTP", async (t) => {
  const res = await fetch(`${server.baseUrl}/omnigate.model.v1.ModelService/ListModels`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: "{}",
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as { models: unknown[] };
  t.ok(Array.isArray(body.models));
});
