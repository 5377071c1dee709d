// item_reference input items resolved from stored responses: the response an
// item id names, one context read per response, and OpenAI's 400 for an item
// that is not there.
import t from "tap";
import type { JsonObject } from "@bufbuild/protobuf";
import { errorDetail } from "../../../src/core/errors.js";
import { itemId } from "../../../src/facades/openai-responses/ids.js";
import { hasReferences, resolveReferences, responseIdOfItem } from "../../../src/facades/openai-responses/references.js";
import type * as wire from "../../../src/facades/openai-responses/wire.js";

const RESP = "resp_" + "ab".repeat(24);
const OTHER = "resp_" + "cd".repeat(24);
const msg = itemId("msg", RESP, 1);
const call = itemId("fc", RESP, 2);
const stored: Record<string, JsonObject[]> = {
  [RESP]: [
    { id: "msg_input", type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
    { id: msg, type: "message", role: "assistant", content: [{ type: "output_text", text: "hello" }] },
    { id: call, type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
  ],
};

t.test("an item id names its response", async (t) => {
  t.equal(responseIdOfItem(msg), RESP);
  t.equal(responseIdOfItem(itemId("rs", OTHER, 300)), OTHER, "a three-digit index");
  t.equal(responseIdOfItem("msg_abc"), undefined, "an id the gateway did not mint");
  t.equal(responseIdOfItem(`xyz_${"ab".repeat(24)}01`), undefined, "an unknown prefix");
});

t.test("references are replaced by the stored items, one read per response", async (t) => {
  const reads: string[] = [];
  const context = async (id: string) => {
    reads.push(id);
    return stored[id];
  };
  const input = [
    { role: "user", content: "again" },
    { type: "item_reference", id: msg },
    { type: "item_reference", id: call },
    { type: "function_call_output", call_id: "call_1", output: "ok" },
  ] as wire.InputItem[];
  t.ok(hasReferences(input));
  t.notOk(hasReferences("text"), "a string input has none");
  t.notOk(hasReferences([{ role: "user", content: "x" }] as wire.InputItem[]));
  const out = await resolveReferences(input, context);
  t.same(out, [input[0], stored[RESP]![1], stored[RESP]![2], input[3]]);
  t.same(reads, [RESP], "the context is read once");
});

t.test("an item that is not stored is OpenAI's 400 naming the item", async (t) => {
  const context = async (id: string) => stored[id];
  for (const [id, why] of [
    [itemId("msg", RESP, 9), "not in its response"],
    [itemId("msg", OTHER, 0), "of no stored response of the caller's"],
    ["msg_foreign", "an id the gateway did not mint"],
  ] as const) {
    const err = await resolveReferences(
      [
        { role: "user", content: "x" },
        { type: "item_reference", id },
      ] as wire.InputItem[],
      context,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.match(err, { message: new RegExp(`Item with id '${id}' not found`) }, why);
    t.match(errorDetail(err as never), { reason: "item_not_found", field: "input[1].id" });
  }
});
