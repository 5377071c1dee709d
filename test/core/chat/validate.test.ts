// Meaning checks on every chat input: custom tools.
import t from "tap";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ChatInputSchema, Role } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { checkChatInput } from "../../../src/core/chat/validate.js";
import { errorDetail } from "../../../src/core/errors.js";

const withCustom = (name: string, format?: JsonObject) =>
  create(ChatInputSchema, {
    model: "m",
    turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }],
    tools: [{ kind: { case: "function", value: { name: "f" } } }, { kind: { case: "custom", value: { name, ...(format ? { format } : {}) } } }],
  });

t.test("custom tools", async (t) => {
  const cases: Array<[string, ReturnType<typeof withCustom>, string | undefined]> = [
    ["free text", withCustom("note"), undefined],
    ["text format", withCustom("note", { type: "text" }), undefined],
    ["a grammar", withCustom("apply_patch", { type: "grammar", syntax: "lark", definition: "start: /.+/" }), undefined],
    ["a newer format type passes", withCustom("x", { type: "schema_v2" }), undefined],
    ["no name", withCustom(""), "tools[1].custom.name"],
    ["a grammar without a definition", withCustom("x", { type: "grammar", syntax: "lark" }), "tools[1].custom.format.definition"],
  ];
  for (const [name, input, field] of cases) {
    if (!field) {
      t.doesNotThrow(() => checkChatInput(input, { requireTurns: true }), name);
      continue;
    }
    let err: unknown;
    try {
      checkChatInput(input, { requireTurns: true });
    } catch (e) {
      err = e;
    }
    t.equal(errorDetail(err as never)?.field, field, name);
  }
});
