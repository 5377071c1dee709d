// wire.ts: snake_case keys and nulls are normalized for the whole body in one
// pass, at every level the schemas know and nowhere else.
import t from "tap";
import * as wire from "../../../src/facades/generate-content/wire.js";

t.test("snake_case keys become camelCase at every schema level", async (t) => {
  const body = {
    contents: [
      { role: "user", parts: [{ text: "a" }, { inline_data: { mime_type: "image/png", data: "AAAA" } }] },
      { role: "model", parts: [{ function_call: { name: "f", args: { snake_key: 1, other_value: null } } }] },
      { role: "user", parts: [{ function_response: { name: "f", response: { some_field: "x" }, parts: [{ inline_data: { mime_type: "image/png", data: "AAAA" } }] } }] },
    ],
    system_instruction: { parts: [{ text: "s" }] },
    tools: [{ function_declarations: [{ name: "f", parameters_json_schema: { type: "object", properties: { snake_prop: { type: "string" } } } }] }],
    tool_config: { function_calling_config: { mode: "ANY", allowed_function_names: ["f"] } },
    generation_config: { max_output_tokens: 5, thinking_config: { thinking_budget: 0 }, response_mime_type: "text/plain" },
  };
  const frozen = JSON.stringify(body);
  const r = wire.generateContentRequest.parse(body);
  t.equal(JSON.stringify(body), frozen, "the input is not changed");
  t.same(r.contents[0]!.parts[1], { inlineData: { mimeType: "image/png", data: "AAAA" } });
  t.same(r.contents[1]!.parts[0]!.functionCall, { name: "f", args: { snake_key: 1, other_value: null } }, "free-form args keep their keys and nulls");
  t.same(r.contents[2]!.parts[0]!.functionResponse!.response, { some_field: "x" });
  t.same(r.contents[2]!.parts[0]!.functionResponse!.parts, [{ inlineData: { mimeType: "image/png", data: "AAAA" } }]);
  t.same(r.systemInstruction, { parts: [{ text: "s" }] });
  t.same(r.tools![0]!.functionDeclarations![0]!.parametersJsonSchema, { type: "object", properties: { snake_prop: { type: "string" } } });
  t.same(r.toolConfig, { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } });
  t.same(r.generationConfig, { maxOutputTokens: 5, thinkingConfig: { thinkingBudget: 0 }, responseMimeType: "text/plain" });
});

t.test("null means not set, at every schema level", async (t) => {
  const r = wire.generateContentRequest.parse({
    contents: [{ role: null, parts: [{ text: "a", thought: null, inline_data: null }] }],
    tools: null,
    generationConfig: { temperature: null, thinking_config: { include_thoughts: null } },
  });
  t.same(r, { contents: [{ parts: [{ text: "a" }] }], generationConfig: { thinkingConfig: {} } });
});

t.test("camelCase wins when both spellings are sent; unknown keys are kept (for Gemini)", async (t) => {
  const r = wire.generateContentRequest.parse({ contents: [], generationConfig: { maxOutputTokens: 7, max_output_tokens: 9, future_field: 1 } });
  t.same(r.generationConfig, { maxOutputTokens: 7, future_field: 1 });
});

t.test("a body that needs no renaming is passed on as it is", async (t) => {
  const plan: wire.KeyPlan = { kind: "object", bySnake: new Map([["max_tokens", "maxTokens"]]), children: new Map() };
  const body = { maxTokens: 1, other: { max_tokens: 2 } };
  t.equal(wire.normalizeKeys(body, plan), body);
  const renamed = wire.normalizeKeys({ max_tokens: 1 }, plan);
  t.same(renamed, { maxTokens: 1 });
  t.equal(wire.normalizeKeys("text", plan), "text", "a non-object is left for the schema to refuse");
  const arr = [body];
  t.equal(wire.normalizeKeys(arr, plan), arr, "an array where an object belongs is left for the schema to refuse");
  const list = [body, { max_tokens: 3 }];
  const out = wire.normalizeKeys(list, { kind: "array", of: plan }) as unknown[];
  t.not(out, list, "a list with one element to rename is copied");
  t.equal(out[0], body, "its untouched elements are the same objects");
  t.same(out[1], { maxTokens: 3 });
  t.same(list[1], { max_tokens: 3 }, "and the input list is not changed");
});

t.test("shapes the schemas refuse are still refused, with the wire path", async (t) => {
  const r = wire.generateContentRequest.safeParse({ contents: [{ parts: [null] }] });
  t.notOk(r.success);
  t.same(r.error?.issues[0]?.path, ["contents", 0, "parts", 0]);
  const s = wire.generateContentRequest.safeParse({ contents: [{ parts: [{ inline_data: { data: "AAAA" } }] }] });
  t.same(s.error?.issues[0]?.path, ["contents", 0, "parts", 0, "inlineData", "mimeType"]);
  t.notOk(wire.countTokensRequest.safeParse({ generate_content_request: { contents: "x" } }).success);
  t.same(wire.countTokensRequest.parse({ generate_content_request: { contents: [], generation_config: { top_k: 3 } } }), {
    generateContentRequest: { contents: [], generationConfig: { topK: 3 } },
  });
});
