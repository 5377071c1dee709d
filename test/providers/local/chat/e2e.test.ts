// The local engine end to end through the core's Connect transport: a tool
// call, a streamed thinking answer, and its signature sent back (also after a
// restart on the same data dir, and tampered).
import t from "tap";
import { rmSync } from "node:fs";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ChatService, FinishReason, Role, type Part } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../../src/core/errors.js";
import { collectStream } from "../../../../src/core/chat/stream.js";
import { ADMIN_KEY, startServer, tempDir, type TestServer } from "../../../helpers/app.js";
import { newAjv } from "./fixtures.js";

const headers = { authorization: `Bearer ${ADMIN_KEY}` };
const dataDir = tempDir();
let server: TestServer;
t.before(async () => {
  server = await startServer({ dataDir });
});
t.teardown(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const client = (s: TestServer) => createClient(ChatService, createConnectTransport({ baseUrl: s.baseUrl, httpVersion: "1.1" }));
const userText = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });
const parameters = {
  type: "object",
  properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] }, when: { type: "string", format: "date" } },
  required: ["city", "unit", "when"],
  additionalProperties: false,
};

t.test("a tool call over Connect", async (t) => {
  const resp = await client(server).generate(
    { input: { model: "claude-sonnet-4-6", turns: [userText("Use get_forecast for Madrid on 2025-06-01")], tools: [{ kind: { case: "function", value: { name: "get_forecast", parameters } } }] } },
    { headers },
  );
  const c = resp.candidates[0]!;
  t.equal(c.finishReason, FinishReason.TOOL_USE);
  const call = c.parts[0]!.kind;
  t.equal(call.case, "toolCall");
  if (call.case !== "toolCall") return;
  t.equal(call.value.name, "get_forecast");
  t.same(call.value.arguments, { city: "Madrid", unit: "celsius", when: "2025-06-01" });
  t.ok(newAjv().validate(parameters, call.value.arguments), "arguments validate");
  t.equal(resp.channel, "local");
});

t.test("a streamed thinking answer, sent back", async (t) => {
  const input = { model: "gemini-2.5-flash", turns: [userText("why is the sea salty?")], config: { thinking: { includeThoughts: true, budgetTokens: 512 } } };
  const events = [];
  for await (const e of client(server).streamGenerate({ input }, { headers })) events.push(e);
  t.ok(events.filter((e) => e.event.case === "partDelta" && e.event.value.delta.case === "thinking").length > 1, "the thought arrives in several deltas");
  const resp = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  const [thought, answer] = resp.candidates[0]!.parts as [Part, Part];
  t.equal(thought.kind.case, "thinking");
  t.equal(thought.signature?.issuer, "local");
  t.equal(answer.kind.case === "text" && answer.kind.value.text, "You said: why is the sea salty?");
  t.equal(resp.usage!.thinkingTokens > 0n && resp.usage!.outputTokens > resp.usage!.thinkingTokens, true);

  const follow = (parts: Part[]) => ({ input: { ...input, turns: [...input.turns, { role: Role.ASSISTANT, parts }, userText("and the rivers?")] } });
  const ok = await client(server).generate(follow([thought, answer]), { headers });
  t.equal(ok.candidates.length, 1, "the signature verifies");

  // The secret lives in the data dir, so a restarted gateway still accepts it.
  await server.close();
  server = await startServer({ dataDir });
  const again = await client(server).generate(follow([thought, answer]), { headers });
  t.equal(again.candidates.length, 1, "still verifies after a restart");

  const forged = { ...thought, signature: { ...thought.signature!, value: "Zm9yZ2Vk" } };
  const err = await client(server)
    .generate(follow([forged, answer]), { headers })
    .catch((e: unknown) => e);
  t.ok(err instanceof ConnectError);
  t.equal((err as ConnectError).code, Code.InvalidArgument);
  t.equal(errorDetail(err as ConnectError)?.reason, "invalid_signature");
  t.equal(errorDetail(err as ConnectError)?.field, "turns[1].parts[0].signature");
});
