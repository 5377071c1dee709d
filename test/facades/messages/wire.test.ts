// Validation of Messages requests: every rule of spec 4.3 and the error text
// the real API would give (field path + pydantic-style message).
import t from "tap";
import type { z } from "zod";
import { describeIssues, issueText, pydanticMessages } from "../../../src/facades/messages/issues.js";
import * as wire from "../../../src/facades/messages/wire.js";

const ok = { model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "hi" }] };

function check(body: unknown, schema: z.ZodType = wire.messagesRequest): string {
  const r = schema.safeParse(body, { error: pydanticMessages, reportInput: true });
  return r.success ? "ok" : issueText(describeIssues(r.error.issues));
}

const png = Buffer.from("png").toString("base64");

const cases: [string, unknown, string | RegExp][] = [
  ["minimal", ok, "ok"],
  ["missing max_tokens", { model: "m", messages: ok.messages }, "max_tokens: Field required"],
  ["max_tokens string", { ...ok, max_tokens: "10" }, "max_tokens: Input should be a valid number"],
  ["max_tokens fraction", { ...ok, max_tokens: 1.5 }, "max_tokens: Input should be a valid integer"],
  ["max_tokens beyond int32", { ...ok, max_tokens: 2 ** 31 }, "max_tokens: Input should be less than or equal to 2147483647"],
  ["max_tokens zero", { ...ok, max_tokens: 0 }, "max_tokens: Input should be greater than or equal to 1"],
  ["missing model", { max_tokens: 1, messages: ok.messages }, "model: Field required"],
  ["empty model", { ...ok, model: "" }, "model: String should have at least 1 character"],
  ["long model", { ...ok, model: "m".repeat(257) }, "model: String should have at most 256 characters"],
  ["messages not a list", { ...ok, messages: "hi" }, "messages: Input should be a valid list"],
  ["no messages", { ...ok, messages: [] }, "messages: List should have at least 1 item after validation, not 0"],
  [
    "system message in the conversation",
    {
      ...ok,
      messages: [
        { role: "user", content: "a" },
        { role: "system", content: "x" },
        { role: "user", content: "b" },
      ],
    },
    "ok",
  ],
  ["bad role", { ...ok, messages: [{ role: "tool", content: "x" }] }, "messages.0.role: Input should be 'user', 'assistant' or 'system'"],
  ["empty text block", { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }, "messages.0.content.0.text: String should have at least 1 character"],
  ["text block missing text", { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text" }] }] }, "messages.0.content.1.text: Field required"],
  ["block of an unknown type passes", { ...ok, messages: [{ role: "user", content: [{ type: "audio" }] }] }, "ok"],
  [
    "block type not a string",
    { ...ok, messages: [{ role: "user", content: [{ type: 5 }] }] },
    "messages.0.content.0: Input tag '5' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', 'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', 'tool_search_tool_result', 'container_upload'",
  ],
  ["block without a type", { ...ok, messages: [{ role: "user", content: [{ text: "a" }] }] }, "messages.0.content.0: Unable to extract tag using discriminator 'type'"],
  [
    "unknown block in a tool result and the system",
    { ...ok, system: [{ type: "future_block", x: 1 }], messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "future_block" }] }] }] },
    "ok",
  ],
  ["content number", { ...ok, messages: [{ role: "user", content: 5 }] }, "messages.0.content: Input should be a valid string or a valid list"],
  ["empty user content", { ...ok, messages: [{ role: "user", content: "" }] }, "messages.0: all messages must have non-empty content except for the optional final assistant message"],
  [
    "empty final assistant",
    {
      ...ok,
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: "" },
      ],
    },
    "ok",
  ],
  [
    "trailing whitespace",
    {
      ...ok,
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: "b " },
      ],
    },
    "messages: final assistant content cannot end with trailing whitespace",
  ],
  ["image ok", { ...ok, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }] }] }, "ok"],
  ["image url", { ...ok, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }] }, "ok"],
  [
    "image media type",
    { ...ok, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: png } }] }] },
    "messages.0.content.0.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
  ],
  [
    "image not base64",
    { ...ok, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "%%%" } }] }] },
    "messages.0.content.0.source.data: Input should be a valid base64 string",
  ],
  ["document pdf", { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: png } }] }] }, "ok"],
  ["document content string", { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: "plain" }, citations: { enabled: true } }] }] }, "ok"],
  [
    "document content blocks",
    {
      ...ok,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "document",
              source: {
                type: "content",
                content: [
                  { type: "text", text: "a" },
                  { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
                ],
              },
            },
          ],
        },
      ],
    },
    "ok",
  ],
  ["document content missing", { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "content" } }] }] }, "messages.0.content.0.source.content: Field required"],
  [
    "document content number",
    { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: 5 } }] }] },
    "messages.0.content.0.source.content: Input should be a valid string or a valid list",
  ],
  [
    "document content nested document",
    {
      ...ok,
      messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }] } }] }],
    },
    "messages.0.content.0.source.content.0: Input tag 'document' found using 'type' does not match any of the expected tags: 'text', 'image'",
  ],
  [
    "document content empty text",
    { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: [{ type: "text", text: "" }] } }] }] },
    "messages.0.content.0.source.content.0.text: String should have at least 1 character",
  ],
  [
    "document source of an unknown type",
    { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "s3", uri: "s3://b/k" } }] }] },
    "messages.0.content.0.source: Input tag 's3' found using 'type' does not match any of the expected tags: 'base64', 'text', 'url', 'content', 'file'",
  ],
  ["document file source without its id", { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "file" } }] }] }, "messages.0.content.0.source.file_id: Field required"],
  ["document file source", { ...ok, messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: "file_1" } }] }] }, "ok"],
  ["image file source", { ...ok, messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] }] }, "ok"],
  ["tool_result blocks", { ...ok, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "r" }], is_error: true }] }] }, "ok"],
  ["search_result", { ...ok, messages: [{ role: "user", content: [{ type: "search_result", source: "s", title: "t", content: [{ type: "text", text: "c" }], citations: { enabled: true } }] }] }, "ok"],
  [
    "search_result no title",
    { ...ok, messages: [{ role: "user", content: [{ type: "search_result", source: "s", content: [{ type: "text", text: "c" }] }] }] },
    "messages.0.content.0.title: Field required",
  ],
  [
    "search_result image content",
    { ...ok, messages: [{ role: "user", content: [{ type: "search_result", source: "s", title: "t", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }] }] },
    "messages.0.content.0.content.0.type: Input should be 'text'",
  ],
  [
    "tool_result search_result and tool_reference",
    {
      ...ok,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: [
                { type: "tool_reference", tool_name: "f" },
                { type: "search_result", source: "s", title: "t", content: [{ type: "text", text: "c" }] },
              ],
            },
          ],
        },
      ],
    },
    "ok",
  ],
  [
    "tool_reference outside a tool result",
    { ...ok, messages: [{ role: "user", content: [{ type: "tool_reference", tool_name: "f" }] }] },
    /^messages\.0\.content\.0: Input tag 'tool_reference' found/,
  ],
  ["tool_result no id", { ...ok, messages: [{ role: "user", content: [{ type: "tool_result", content: "r" }] }] }, "messages.0.content.0.tool_use_id: Field required"],
  [
    "tool_use input not object",
    { ...ok, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: 3 }] }] },
    "messages.0.content.0.input: Input should be a valid dictionary",
  ],
  ["thinking without signature", { ...ok, messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "x" }] }] }, "messages.0.content.0.signature: Field required"],
  ["cache_control of a newer type", { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "a", cache_control: { type: "forever", ttl: "24h" } }] }] }, "ok"],
  [
    "cache_control bad",
    { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "a", cache_control: { type: "" } }] }] },
    "messages.0.content.0.cache_control.type: String should have at least 1 character",
  ],
  ["temperature high", { ...ok, temperature: 1.5 }, "temperature: Input should be less than or equal to 1"],
  ["top_p negative", { ...ok, top_p: -0.1 }, "top_p: Input should be greater than or equal to 0"],
  ["top_k zero", { ...ok, top_k: 0 }, "top_k: Input should be greater than or equal to 1"],
  ["stop_sequences not list", { ...ok, stop_sequences: "x" }, "stop_sequences: Input should be a valid list"],
  ["user_id long", { ...ok, metadata: { user_id: "u".repeat(257) } }, "metadata.user_id: String should have at most 256 characters"],
  ["stream not bool", { ...ok, stream: "yes" }, "stream: Input should be a valid boolean"],
  ["thinking small budget", { ...ok, thinking: { type: "enabled", budget_tokens: 100 } }, "thinking.budget_tokens: Input should be greater than or equal to 1024"],
  ["thinking budget >= max_tokens", { ...ok, max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 2000 } }, "thinking.budget_tokens: Input should be less than max_tokens"],
  ["thinking ok", { ...ok, max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 1024 } }, "ok"],
  ["thinking disabled", { ...ok, thinking: { type: "disabled" } }, "ok"],
  ["thinking display omitted", { ...ok, max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 1024, display: "omitted" } }, "ok"],
  ["thinking adaptive display", { ...ok, thinking: { type: "adaptive", display: "summarized" } }, "ok"],
  ["thinking display newer", { ...ok, thinking: { type: "adaptive", display: "updates" } }, "ok"],
  ["thinking display bad", { ...ok, thinking: { type: "adaptive", display: 3 } }, "thinking.display: Input should be a valid string"],
  ["thinking between_tools", { ...ok, thinking: { type: "between_tools" } }, "ok"],
  ["web search tool", { ...ok, tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3, allowed_domains: ["example.com"] }] }, "ok"],
  [
    "web fetch, code execution, memory, tool search",
    {
      ...ok,
      tools: [
        { type: "web_fetch_20260318", name: "web_fetch" },
        { type: "code_execution_20250825", name: "code_execution" },
        { type: "memory_20250818", name: "memory" },
        { type: "tool_search_tool_bm25", name: "tool_search_tool_bm25" },
      ],
    },
    "ok",
  ],
  [
    "server tool replayed",
    {
      ...ok,
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "text", text: "a" },
          ],
        },
        { role: "user", content: "more" },
      ],
    },
    "ok",
  ],
  ["effort xhigh", { ...ok, output_config: { effort: "xhigh" } }, "ok"],
  ["effort newer", { ...ok, output_config: { effort: "ultra" } }, "ok"],
  ["effort bad", { ...ok, output_config: { effort: 3 } }, "output_config.effort: Input should be a valid string"],
  ["output format of a newer type", { ...ok, output_config: { format: { type: "regex", pattern: "a+" } } }, "ok"],
  ["json_schema format without its schema", { ...ok, output_config: { format: { type: "json_schema" } } }, "output_config.format.schema: Field required"],
  ["thinking newer type", { ...ok, thinking: { type: "on" } }, "ok"],
  ["thinking bad type", { ...ok, thinking: { type: 3 } }, "thinking: Input tag '3' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive', 'between_tools'"],
  ["thinking enabled without budget", { ...ok, thinking: { type: "enabled" } }, "thinking.budget_tokens: Field required"],
  ["custom tool", { ...ok, tools: [{ name: "get_weather", input_schema: { type: "object" } }] }, "ok"],
  ["custom tool typed", { ...ok, tools: [{ type: "custom", name: "f", input_schema: { type: "object" } }] }, "ok"],
  ["tool without schema", { ...ok, tools: [{ name: "f" }] }, "tools.0.input_schema: Field required"],
  ["tool name pattern", { ...ok, tools: [{ name: "a b", input_schema: { type: "object" } }] }, "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"],
  ["tool name too long", { ...ok, tools: [{ name: "a".repeat(65), input_schema: { type: "object" } }] }, "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"],
  [
    "duplicate tools",
    {
      ...ok,
      tools: [
        { name: "f", input_schema: { type: "object" } },
        { name: "f", input_schema: { type: "object" } },
      ],
    },
    "tools.1.name: Tool names must be unique.",
  ],
  ["computer tool", { ...ok, tools: [{ type: "computer_20241022", name: "computer", display_width_px: 1024, display_height_px: 768, display_number: 1 }] }, "ok"],
  ["computer newer", { ...ok, tools: [{ type: "computer_20250124", name: "computer", display_width_px: 1024, display_height_px: 768 }] }, "ok"],
  ["computer no size", { ...ok, tools: [{ type: "computer_20241022", name: "computer" }] }, "tools.0.display_width_px: Field required"],
  ["bash tool", { ...ok, tools: [{ type: "bash_20241022", name: "bash" }] }, "ok"],
  ["bash wrong name", { ...ok, tools: [{ type: "bash_20241022", name: "sh" }] }, "tools.0.name: Input should be 'bash'"],
  ["text editor", { ...ok, tools: [{ type: "text_editor_20241022", name: "str_replace_editor" }] }, "ok"],
  ["computer toolset", { ...ok, tools: [{ type: "computer_toolset_20260801", configs: { screenshot: { defer_loading: true }, zoom: null } }] }, "ok"],
  ["browser toolset alone with tool_choice any", { ...ok, tools: [{ type: "browser_toolset_20260801" }], tool_choice: { type: "any" } }, "ok"],
  ["two toolsets (no names to clash)", { ...ok, tools: [{ type: "browser_toolset_20260801" }, { type: "computer_toolset_20260801", cache_control: { type: "ephemeral" } }] }, "ok"],
  ["toolset member config not an object", { ...ok, tools: [{ type: "browser_toolset_20260801", configs: { navigate: 3 } }] }, "tools.0.configs.navigate: Input should be a valid dictionary"],
  ["toolset configs a list", { ...ok, tools: [{ type: "browser_toolset_20260801", configs: [] }] }, "tools.0.configs: Input should be a valid dictionary"],
  ["newer toolset", { ...ok, tools: [{ type: "files_toolset_20260801" }] }, "ok"],
  [
    "browser_state in a tool result",
    {
      ...ok,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t",
              content: [{ type: "browser_state", tabs: [{ tab_id: "1", url: "https://a.test/", title: "A", active: true }], state_changes: [{ type: "tab_opened", tab_id: "2" }] }],
            },
          ],
        },
      ],
    },
    "ok",
  ],
  [
    "browser_state without tabs",
    { ...ok, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "browser_state" }] }] }] },
    "messages.0.content.0.content.0.tabs: Field required",
  ],
  ["browser_state outside a tool result", { ...ok, messages: [{ role: "user", content: [{ type: "browser_state", tabs: [] }] }] }, /^messages\.0\.content\.0: Input tag 'browser_state' found/],
  ["newer tool type", { ...ok, tools: [{ type: "teleport_20241022", name: "x" }] }, "ok"],
  ["tool type not a string", { ...ok, tools: [{ type: 7, name: "x" }] }, "tools.0: Input tag '7' found using 'type' does not match any of the expected tags"],
  ["newer tool with an empty name", { ...ok, tools: [{ type: "teleport_20241022", name: "" }] }, "tools.0.name: String should have at least 1 character"],
  ["tool_choice auto", { ...ok, tool_choice: { type: "auto", disable_parallel_tool_use: true } }, "ok"],
  ["tool_choice any without tools", { ...ok, tool_choice: { type: "any" } }, "tool_choice: tool_choice may only be specified while providing tools"],
  ["tool_choice tool no name", { ...ok, tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "tool" } }, "tool_choice.name: Field required"],
  ["tool_choice unknown tool", { ...ok, tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "tool", name: "g" } }, "tool_choice.name: Tool 'g' not found in tools"],
  ["tool_choice newer type", { ...ok, tool_choice: { type: "maybe" } }, "ok"],
  ["tool_choice bad type", { ...ok, tool_choice: { type: 1 } }, "tool_choice: Input tag '1' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"],
  ["system blocks", { ...ok, system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }] }, "ok"],
  ["system number", { ...ok, system: 3 }, "system: Input should be a valid string or a valid list"],
  ["unknown fields pass", { ...ok, service_tier: "auto", container: null }, "ok"],
  ["body not object", [1, 2], "Input should be a valid dictionary"],
];

for (const [name, body, want] of cases) {
  t.test(name, async (t) => {
    if (want instanceof RegExp) t.match(check(body), want);
    else t.equal(check(body), want);
  });
}

t.test("count_tokens shape: no max_tokens needed", async (t) => {
  t.equal(check({ model: "m", messages: [{ role: "user", content: "x" }] }, wire.countTokensRequest), "ok");
  t.equal(check({ model: "m" }, wire.countTokensRequest), "messages: Field required");
});

t.test("models query", async (t) => {
  t.same(wire.listModelsQuery.parse({ limit: "5", after_id: "a" }), { limit: 5, after_id: "a" });
  t.equal(wire.listModelsQuery.safeParse({ limit: "0" }).success, false);
});
