import t from "tap";
import { create } from "@bufbuild/protobuf";
import { GenerateResponseSchema, GenerationConfigSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { jsonOutputOf, unwrapResponse, unwrapStream, unwrapText } from "../../../src/providers/shared/json-output.js";
import { collectStream, responseToEvents } from "../../../src/core/chat/stream.js";
import { argsObject, safeToolId } from "../../../src/providers/shared/parts.js";

const cfg = (init: object) => create(GenerationConfigSchema, init);

t.test("which schemas need wrapping", async (t) => {
  t.same(jsonOutputOf(undefined), { kind: "none" });
  t.same(jsonOutputOf(cfg({ responseMimeType: "application/json" })), { kind: "any" });
  t.match(jsonOutputOf(cfg({ responseMimeType: "application/json", responseSchema: { type: "object" } })), { kind: "schema", wrapped: false });
  t.match(jsonOutputOf(cfg({ responseMimeType: "application/json", responseSchema: { type: "array", items: { type: "number" } } })), { kind: "schema", wrapped: true, raw: false });
  t.match(jsonOutputOf(cfg({ responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["A"] } })), { kind: "schema", wrapped: true, raw: true });
});

t.test("unwrapping whole answers and streams", async (t) => {
  const arr = jsonOutputOf(cfg({ responseMimeType: "application/json", responseSchema: { type: "array" } }));
  const en = jsonOutputOf(cfg({ responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["YES", "NO"] } }));
  t.equal(unwrapText('{"value":[1,2]}', arr), "[1,2]");
  t.equal(unwrapText('{"value":"YES"}', en), "YES");
  t.equal(unwrapText("not json", en), "not json", "left alone when it is not the wrapper");
  t.equal(unwrapText('{"value":"cut \\ud83d"}', en), "cut \ufffd", "an unpaired surrogate escaped in the model's JSON is U+FFFD");
  const resp = () => create(GenerateResponseSchema, { id: "r", candidates: [{ index: 0, parts: [{ kind: { case: "text", value: { text: '{"value": "NO"}' } } }], finishReason: 1 }] });
  const whole = unwrapResponse(resp(), en);
  t.same(whole.candidates[0]!.parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.TextPart", text: "NO", citations: [] });
  const chunks = (s: string) => s.match(/.{1,3}/gs) ?? [];
  const streamed = await collectStream(
    unwrapStream(
      (async function* () {
        yield* responseToEvents(resp(), chunks);
      })(),
      en,
    ),
  );
  t.same(streamed.candidates[0]!.parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.TextPart", text: "NO", citations: [] });
});

t.test("tool ids and arguments", async (t) => {
  t.equal(safeToolId("toolu_01ABC"), "toolu_01ABC");
  t.equal(safeToolId("call:1/2"), safeToolId("call:1/2"), "stable");
  t.match(safeToolId("call:1/2"), /^toolu_[A-Za-z0-9_]{24}$/);
  t.not(safeToolId("a b"), safeToolId("a/b"));
  t.same(argsObject('{"a":1}'), { a: 1 });
  t.same(argsObject(""), {});
  t.same(argsObject("[1]"), { value: [1] });
  t.same(argsObject("{broken"), { _raw: "{broken" });
  t.same(argsObject('{"a":"cut \\ud83d"}'), { a: "cut \ufffd" }, "an unpaired surrogate in the arguments is U+FFFD");
  t.same(argsObject("{broken \ud83d"), { _raw: "{broken \ufffd" }, "also in arguments that do not parse");
});
