// zod issues -> OpenAI's 400 texts and params, for /v1/responses and /v1/chat/completions bodies.
import t from "tap";
import { describeIssues } from "../../../src/facades/openai-responses/issues.js";
import { listValues, paramOf } from "../../../src/facades/shared/openai-issues.js";
import * as wire from "../../../src/facades/openai-responses/wire.js";
import { describeIssues as describeChatIssues } from "../../../src/facades/openai-chat/issues.js";
import * as chatWire from "../../../src/facades/openai-chat/wire.js";

const describe = (body: unknown) => {
  const r = wire.responsesRequest.safeParse(body, { reportInput: true });
  if (r.success) return "valid";
  return describeIssues(r.error.issues, body);
};

t.test("each kind of issue", async (t) => {
  const cases: [unknown, unknown][] = [
    [{ input: "x" }, { message: "Missing required parameter: 'model'.", param: "model", code: "missing_required_parameter" }],
    [
      { model: 5, input: "x" },
      { message: "Invalid type for 'model': expected a string, but got an integer instead.", param: "model", code: "invalid_type" },
    ],
    [
      { model: "m", input: "x", temperature: "hot" },
      { message: "Invalid type for 'temperature': expected a decimal, but got a string instead.", param: "temperature", code: "invalid_type" },
    ],
    [
      { model: "m", input: "x", stream: null, store: "yes" },
      { message: "Invalid type for 'store': expected a boolean, but got a string instead.", param: "store", code: "invalid_type" },
    ],
    [
      { model: "m", input: 5 },
      { message: "Invalid type for 'input': expected a string, but got an integer instead.", param: "input", code: "invalid_type" },
    ],
    [
      { model: "m", input: "x", top_logprobs: 1.5 },
      { message: "Invalid type for 'top_logprobs': expected an integer, but got a decimal instead.", param: "top_logprobs", code: "invalid_type" },
    ],
    [
      { model: "m", input: "x", top_logprobs: 21 },
      { message: "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 21 instead.", param: "top_logprobs", code: "integer_above_max_value" },
    ],
    [
      { model: "m", input: "x", top_p: -1 },
      { message: "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -1 instead.", param: "top_p", code: "decimal_below_min_value" },
    ],
    [
      { model: "", input: "x" },
      { message: "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.", param: "model", code: "empty_string" },
    ],
    [
      { model: "m".repeat(300), input: "x" },
      { message: "Invalid 'model': string too long. Expected a maximum length of 256.", param: "model", code: "string_above_max_length" },
    ],
    [
      { model: "m", input: "x", text: { format: { type: "json_schema", name: "n".repeat(65), schema: {} } } },
      { param: "text.format.name", code: "string_above_max_length" },
    ],
    [
      { model: "m", input: [{ type: "function_call_output", call_id: "", output: "x" }] },
      { param: "input[0].call_id", code: "empty_string" },
    ],
    [
      { model: "m", input: "x", tool_choice: { type: "custom" } },
      { message: "Missing required parameter: 'tool_choice.name'.", param: "tool_choice.name" },
    ],
    [
      { model: "m", input: "x", tool_choice: 5 },
      { param: "tool_choice", code: "invalid_type" },
    ],
    [
      { model: "m", input: "x", tools: [{ name: "f" }] },
      { message: "Missing required parameter: 'tools[0].type'.", param: "tools[0].type", code: "missing_required_parameter" },
    ],
    [
      { model: "m", input: "x", tools: [{ type: "namespace", name: "ns" }] },
      { message: "Missing required parameter: 'tools[0].tools'.", param: "tools[0].tools" },
    ],
    [
      { model: "m", input: [{ role: "user", content: [{ text: "x" }] }] },
      { message: "Missing required parameter: 'input[0].content[0].type'.", param: "input[0].content[0].type" },
    ],
    [
      { model: "m", input: [{ type: "reasoning", encrypted_content: 5 }] },
      { param: "input[0].encrypted_content", code: "invalid_type" },
    ],
    [
      { model: "m", input: [{ role: "user", content: [{ type: "input_file" }] }] },
      { message: "Invalid 'input[0].content[0]': one of file_id, file_data or file_url is required.", param: "input[0].content[0]" },
    ],
  ];
  for (const [body, want] of cases) t.match(describe(body), want, JSON.stringify(body).slice(0, 100));
  t.equal(describe({ model: "m", input: "x", tool_choice: { type: "web_search_preview" }, tools: [{ type: "mcp" }], future: 1 }), "valid", "forms the gateway does not know pass the schema");
  t.same(describeIssues([], {}), { message: "Invalid request.", param: null, code: null });
});

t.test("the Chat Completions rules: its missing model, its role order, its integers", async (t) => {
  const describeChat = (body: unknown) => {
    const r = chatWire.chatRequest.safeParse(body, { reportInput: true });
    return r.success ? "valid" : describeChatIssues(r.error.issues, body);
  };
  t.same(describeChat({ messages: [{ role: "user", content: "x" }] }), { message: "you must provide a model parameter", param: null, code: null });
  t.match(describeChat({ model: "m", messages: [{ role: "robot", content: "x" }] }), {
    message: "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
    param: "messages[0].role",
    code: "invalid_value",
  });
  t.match(describeChat({ model: "m", messages: [{ role: "user", content: "x" }], n: 0 }), { param: "n", code: "integer_below_min_value" });
  t.match(describeChat({ model: "m", messages: [{ role: "user", content: "x" }], temperature: -1 }), { param: "temperature", code: "decimal_below_min_value" });
});

t.test("helpers", async (t) => {
  t.equal(paramOf(["input", 2, "content", 0, "image_url"]), "input[2].content[0].image_url");
  t.equal(listValues([]), "");
  t.equal(listValues(["a"]), "'a'");
  t.equal(listValues(["a", "b"]), "'a' and 'b'");
  t.equal(listValues(["a", "b", "c"]), "'a', 'b', and 'c'");
});
