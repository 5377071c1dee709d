import t from "tap";
import { createHash, createHmac } from "node:crypto";
import { Code } from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import { BlockReason, CodeOutcome, FinishReason, HarmCategory, HarmProbability, Role, ToolChoiceMode, type Part } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail, retryAfterSeconds } from "../../../../src/core/errors.js";
import { planChat, type PlanOptions } from "../../../../src/providers/local/chat/plan.js";
import { countText, splitTokens } from "../../../../src/lib/tokenizer.js";
import { applyPatch, ask, assistant, codeTool, codexShell, customTool, execCommand, fn, input, newAjv, SECRET, textOf, user, vendorTool } from "./fixtures.js";

const opts: PlanOptions = { blocklist: ["forbidden-topic"], signingSecret: SECRET, faultInjection: true };
const plan = (i: ReturnType<typeof input>, o: Partial<PlanOptions> = {}) => planChat(i, { ...opts, ...o });
const parts = (i: ReturnType<typeof input>) => plan(i).candidates[0]!.parts;
const calls = (ps: Part[]) => ps.flatMap((p) => (p.kind.case === "toolCall" ? [p.kind.value] : []));

const weather = fn("get_weather", {
  type: "object",
  properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
  required: ["city", "unit"],
});
const time = fn("get_time", { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] });

t.test("plain text echoes the last user text", async (t) => {
  const p = plan(ask("hello there"));
  const c = p.candidates[0]!;
  t.equal(textOf(c.parts), "You said: hello there");
  t.equal(c.finishReason, FinishReason.STOP);
  t.equal(c.stopSequence, "");
  t.equal(p.usage.outputTokens, BigInt(countText("You said: hello there")));
  t.same(
    c.safetyRatings.map((r) => [r.category, r.probability, r.blocked]),
    [HarmCategory.HARASSMENT, HarmCategory.HATE_SPEECH, HarmCategory.SEXUALLY_EXPLICIT, HarmCategory.DANGEROUS_CONTENT].map((cat) => [cat, HarmProbability.NEGLIGIBLE, false]),
  );
  t.equal(textOf(parts(input({ turns: [user("first"), assistant("ok"), user("second")] }))), "You said: second", "multi-turn answers the last");
  t.equal(textOf(parts(input({ turns: [assistant("only me")] }))), "Hello from omnigate's local engine.");
  t.equal(textOf(parts(ask("x".repeat(500)))).length, "You said: ".length + 403, "long prompts are clipped");
});

t.test("max_output_tokens cuts the answer", async (t) => {
  for (const max of [1, 2, 3, 5]) {
    const p = plan(ask("one two three four five six seven", { config: { maxOutputTokens: max } }));
    const c = p.candidates[0]!;
    t.equal(c.finishReason, FinishReason.MAX_TOKENS, `max ${max}`);
    t.equal(countText(textOf(c.parts)), max, `max ${max}: exactly ${max} tokens`);
    t.equal(p.usage.outputTokens, BigInt(max));
  }
  t.equal(plan(ask("hi", { config: { maxOutputTokens: 100 } })).candidates[0]!.finishReason, FinishReason.STOP, "a roomy limit changes nothing");
});

t.test("stop sequences", async (t) => {
  const c = plan(ask("alpha beta gamma", { config: { stopSequences: ["gamma", "beta"] } })).candidates[0]!;
  t.equal(textOf(c.parts), "You said: alpha ");
  t.equal(c.finishReason, FinishReason.STOP_SEQUENCE);
  t.equal(c.stopSequence, "beta", "the earliest match wins");
  const none = plan(ask("alpha", { config: { stopSequences: ["zeta"] } })).candidates[0]!;
  t.equal(none.finishReason, FinishReason.STOP);
  const first = plan(ask("alpha", { config: { stopSequences: ["You"] } }));
  t.same(first.candidates[0]!.parts, [], "a stop at the very start leaves no text");
  t.equal(first.usage.outputTokens, 1n, "output tokens are never 0");
});

t.test("tool calls", async (t) => {
  const named = parts(ask("Please use GET_WEATHER for Berlin in fahrenheit", { tools: [weather, time] }));
  t.equal(named.length, 1);
  const call = calls(named)[0]!;
  t.equal(call.name, "get_weather");
  t.match(call.id, /^toolu_[0-9a-f]{24}$/);
  t.same(call.arguments, { city: "Berlin", unit: "fahrenheit" });
  t.equal(plan(ask("use get_weather", { tools: [weather] })).candidates[0]!.finishReason, FinishReason.TOOL_USE);

  t.equal(calls(parts(ask("get_weathers? no", { tools: [weather] }))).length, 0, "whole words only");
  t.equal(calls(parts(ask("use get_weather", { tools: [weather], toolChoice: { mode: ToolChoiceMode.NONE } }))).length, 0, "NONE never calls");
  t.same(
    calls(parts(ask("hello", { tools: [weather, time], toolChoice: { mode: ToolChoiceMode.ANY } }))).map((c) => c.name),
    ["get_weather"],
    "ANY calls the first tool",
  );
  t.same(
    calls(parts(ask("hello", { tools: [weather, time], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["get_time"] } }))).map((c) => c.name),
    ["get_time"],
    "ANY with allowed names",
  );
  t.same(
    calls(parts(ask("call get_time", { tools: [weather, time], toolChoice: { mode: ToolChoiceMode.ANY } }))).map((c) => c.name),
    ["get_time"],
    "ANY prefers a named tool",
  );

  const both = calls(parts(ask("call get_time and then get_weather for Oslo", { tools: [weather, time] })));
  t.same(
    both.map((c) => c.name),
    ["get_time", "get_weather"],
    "parallel calls in the order named",
  );
  t.not(both[0]!.id, both[1]!.id, "ids differ");
  t.equal(calls(parts(ask("call get_time and get_weather", { tools: [weather, time], toolChoice: { mode: ToolChoiceMode.AUTO, disableParallel: true } }))).length, 1, "disable_parallel");

  const ajv = newAjv();
  for (const c of [...both, call]) {
    const schema = [weather, time].find((x) => x.kind.value.name === c.name)!.kind.value.parameters;
    t.ok(ajv.validate(schema, c.arguments), `${c.name} arguments validate`);
  }
});

t.test("vendor tools", async (t) => {
  const tools = [vendorTool("bash_20250124", "bash"), vendorTool("computer_20250124", "computer"), vendorTool("text_editor_20250124", "str_replace_based_edit_tool")];
  t.same(calls(parts(ask("run `git status` with bash", { tools })))[0]!.arguments, { command: "git status" });
  t.same(calls(parts(ask("use bash", { tools })))[0]!.arguments, { command: "ls -la" });
  t.same(calls(parts(ask("hi", { tools, toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["computer"] } })))[0]!.arguments, { action: "screenshot" });
  const edit = calls(parts(ask("look at /srv/app/main.py please", { tools, toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["str_replace_based_edit_tool"] } })))[0]!;
  t.same(edit.arguments, { command: "view", path: "/srv/app/main.py" });
});

t.test("a toolset is called through its screenshot member, marked with its family", async (t) => {
  for (const [type, family] of [
    ["computer_toolset_20260801", "computer"],
    ["browser_toolset_20260801", "browser"],
  ] as const) {
    const ps = parts(ask("hi", { tools: [vendorTool(type, "")], toolChoice: { mode: ToolChoiceMode.ANY } }));
    const call = ps.find((p) => p.kind.case === "toolCall")!;
    t.same(call.kind.case === "toolCall" && { name: call.kind.value.name, arguments: call.kind.value.arguments }, { name: "screenshot", arguments: {} }, type);
    t.same(call.vendorExtras.anthropic, { toolset_name: family });
  }
});

t.test("tool results are answered in text", async (t) => {
  const callPart = { kind: { case: "toolCall" as const, value: { id: "toolu_1", name: "get_weather", arguments: { city: "Paris" } } } };
  const result = { kind: { case: "toolResult" as const, value: { callId: "toolu_1", content: [{ kind: { case: "text" as const, value: { text: "18C and sunny" } } }] } } };
  const p = plan(input({ tools: [weather], turns: [user("use get_weather for Paris"), assistant(callPart), user(result)] }));
  t.equal(textOf(p.candidates[0]!.parts), "The tool get_weather returned: 18C and sunny", "the name comes from the call");
  t.equal(p.candidates[0]!.finishReason, FinishReason.STOP);
  const structured = { kind: { case: "toolResult" as const, value: { callId: "x", name: "get_time", structured: { time: "12:00" } as JsonObject, isError: true } } };
  const forced = plan(input({ tools: [time], toolChoice: { mode: ToolChoiceMode.ANY }, turns: [user("what time"), user(structured)] }));
  t.equal(textOf(forced.candidates[0]!.parts), 'The tool get_time returned: {"time":"12:00"} (reported as an error)', "results win over a forced tool");
});

t.test("thinking", async (t) => {
  const p = plan(ask("why is the sky blue", { config: { thinking: { enabled: true, budgetTokens: 2048 } } }));
  const [th, txt] = p.candidates[0]!.parts;
  t.equal(th?.kind.case, "thinking");
  const thought = th?.kind.case === "thinking" ? th.kind.value.text : "";
  t.match(thought, /^Let me think about "why is the sky blue"\./);
  const digest = createHash("sha256").update(thought).digest("base64url");
  const mac = createHmac("sha256", SECRET).update(`omnigate-local:thought:${digest}`).digest("base64");
  t.same(th?.signature && { issuer: th.signature.issuer, value: th.signature.value }, { issuer: "local", value: `t1.${digest}.${mac}` }, "the digest of the thought and a MAC over it");
  t.equal(txt && textOf([txt]), "You said: why is the sky blue");
  t.equal(p.usage.thinkingTokens, BigInt(countText(thought)));
  t.equal(p.usage.outputTokens, BigInt(countText(thought) + countText("You said: why is the sky blue")), "thinking counts in output");

  const capped = plan(ask("why", { config: { thinking: { enabled: true, budgetTokens: 5 } } }));
  t.equal(capped.usage.thinkingTokens, 5n, "budget caps the thought");
  t.equal(parts(ask("hi", { config: { thinking: { includeThoughts: true } } }))[0]?.kind.case, "thinking", "include_thoughts alone");
  t.equal(parts(ask("hi", { config: { thinking: { budgetTokens: 100 } } }))[0]?.kind.case, "thinking", "a budget alone");
  t.equal(parts(ask("hi", { config: { thinking: { enabled: false, budgetTokens: 100 } } }))[0]?.kind.case, "text", "enabled false wins");
  t.equal(parts(ask("hi", { config: { thinking: {} } }))[0]?.kind.case, "text", "an empty thinking config");

  const small = plan(ask("one two three four five six seven eight", { config: { maxOutputTokens: 10, thinking: { enabled: true, budgetTokens: 1024 } } }));
  t.equal(small.usage.thinkingTokens, 5n, "thinking takes at most half of max_output_tokens");
  t.equal(small.usage.outputTokens, 10n);
  t.equal(small.candidates[0]!.finishReason, FinishReason.MAX_TOKENS);

  const withTool = parts(ask("use get_weather in London", { tools: [weather], config: { thinking: { enabled: true } } }));
  t.same(
    withTool.map((x) => x.kind.case),
    ["thinking", "toolCall"],
  );
  t.match(withTool[0]!.kind.case === "thinking" ? withTool[0]!.kind.value.text : "", /call that tool/);
  t.equal(withTool[1]!.signature?.issuer, "local", "the following part is signed too");
});

t.test("JSON and enum answers", async (t) => {
  const schema: JsonObject = {
    type: "object",
    properties: { title: { type: "string" }, year: { type: "integer", minimum: 1900, maximum: 2100 }, genres: { type: "array", items: { type: "string" }, minItems: 1 } },
    required: ["title", "year", "genres"],
  };
  const json = JSON.parse(textOf(parts(ask("A film from 1999", { config: { responseMimeType: "application/json", responseSchema: schema } }))));
  t.ok(newAjv().validate(schema, json), JSON.stringify(json));
  t.equal(json.year, 1999, "the number comes from the prompt");
  t.same(JSON.parse(textOf(parts(ask("hi", { config: { responseMimeType: "application/json" } })))), { answer: "You said: hi" });
  const en = { responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["POSITIVE", "NEGATIVE", "NEUTRAL"] } as JsonObject };
  t.equal(textOf(parts(ask("I feel neutral about it", { config: en }))), "NEUTRAL");
  t.equal(textOf(parts(ask("no idea", { config: en }))), "POSITIVE");
  t.equal(textOf(parts(ask("hi", { config: { responseMimeType: "text/x.enum" } }))), "You said: hi", "x.enum without values falls back to text");
});

t.test("safety blocklist", async (t) => {
  const p = plan(ask("tell me about Forbidden-Topic now"));
  t.same(p.candidates, []);
  t.equal(p.promptFeedback?.blockReason, BlockReason.SAFETY);
  const ratings = p.promptFeedback!.safetyRatings;
  t.same(
    ratings.find((r) => r.category === HarmCategory.DANGEROUS_CONTENT) && {
      p: ratings.find((r) => r.category === HarmCategory.DANGEROUS_CONTENT)!.probability,
      b: ratings.find((r) => r.category === HarmCategory.DANGEROUS_CONTENT)!.blocked,
    },
    { p: HarmProbability.HIGH, b: true },
  );
  t.ok(ratings.filter((r) => r.category !== HarmCategory.DANGEROUS_CONTENT).every((r) => r.probability === HarmProbability.NEGLIGIBLE && !r.blocked));
  t.equal(p.usage.outputTokens, 0n);
  t.ok(p.usage.inputTokens > 0n);
  t.equal(plan(ask("forbidden-topics are fine")).candidates.length, 1, "whole words only");
  t.equal(plan(ask("say banana"), { blocklist: ["banana"] }).candidates.length, 0, "configurable");
});

t.test("code execution", async (t) => {
  const ps = parts(ask("Calculate 2^10 + 3 * (4 - 1) please", { tools: [codeTool] }));
  t.same(
    ps.map((p) => p.kind.case),
    ["executableCode", "codeExecutionResult", "text"],
  );
  t.same(ps[0]!.kind.value, { $typeName: "omnigate.chat.v1.ExecutableCode", language: "PYTHON", code: "print(2**10 + 3 * (4 - 1))" });
  t.same(ps[1]!.kind.case === "codeExecutionResult" && [ps[1]!.kind.value.outcome, ps[1]!.kind.value.output], [CodeOutcome.OK, "1033\n"]);
  t.equal(textOf(ps), "The result of 2**10 + 3 * (4 - 1) is 1033.");
  const div = parts(ask("compute 7 / 0", { tools: [codeTool] }));
  t.equal(div[1]!.kind.case === "codeExecutionResult" && div[1]!.kind.value.outcome, CodeOutcome.FAILED);
  t.match(textOf(div), /ZeroDivisionError/);
  const hello = parts(ask("run some python code", { tools: [codeTool] }));
  t.equal(hello[1]!.kind.case === "codeExecutionResult" && hello[1]!.kind.value.output, "Hello from omnigate's local engine!\n");
  t.same(
    parts(ask("calculate 1+1")).map((p) => p.kind.case),
    ["text"],
    "no code tool, no code",
  );
  t.same(
    parts(ask("say 1+1", { tools: [codeTool] })).map((p) => p.kind.case),
    ["text"],
    "no request to run code, no code",
  );
});

t.test("candidates, logprobs and seed", async (t) => {
  const p = plan(ask("hello world", { config: { candidateCount: 3 } }));
  t.same(
    p.candidates.map((c) => c.index),
    [0, 1, 2],
  );
  t.equal(p.usage.outputTokens, BigInt(3 * countText("You said: hello world")), "usage counts every candidate");

  const lp = plan(ask("hello world", { config: { responseLogprobs: true } })).candidates[0]!;
  const chosen = lp.logprobs!.chosenCandidates;
  t.same(
    chosen.map((c) => c.token),
    splitTokens("You said: hello world"),
  );
  t.ok(chosen.every((c) => c.logProbability < 0 && c.logProbability > -2));
  t.equal(lp.logprobs!.topCandidates.length, 0, "no top candidates unless asked");
  t.equal(lp.avgLogprobs, chosen.reduce((n, c) => n + c.logProbability, 0) / chosen.length);

  const top = plan(ask("hello world", { config: { responseLogprobs: true, logprobs: 3 } })).candidates[0]!.logprobs!;
  t.equal(top.topCandidates.length, chosen.length);
  for (const [i, pos] of top.topCandidates.entries()) {
    t.equal(pos.candidates.length, 3);
    t.equal(pos.candidates[0]!.token, chosen[i]!.token, "the chosen token is the most likely");
    t.ok(pos.candidates.every((c, k) => k === 0 || c.logProbability < pos.candidates[0]!.logProbability));
    t.ok(pos.candidates.reduce((n, c) => n + Math.exp(c.logProbability), 0) <= 1);
  }
  t.equal(plan(ask("hi")).candidates[0]!.logprobs, undefined);

  const strip = (ps: Part[]) => JSON.stringify(ps.map((p) => p.kind));
  t.equal(strip(parts(ask("same", { config: { seed: 1n } }))), strip(parts(ask("same", { config: { seed: 99n } }))), "seed changes nothing");
});

t.test("fault directives", async (t) => {
  const table: Array<[string, Code, string]> = [
    ["rate_limit", Code.ResourceExhausted, "rate_limited"],
    ["overloaded", Code.Unavailable, "overloaded"],
    ["internal", Code.Internal, "internal"],
    ["timeout", Code.DeadlineExceeded, "deadline_exceeded"],
    ["permission", Code.PermissionDenied, "permission_denied"],
  ];
  for (const [kind, code, reason] of table) {
    const p = plan(ask(`hello #fault:${kind}`));
    t.equal(p.fault?.code, code, kind);
    t.equal(errorDetail(p.fault!)?.reason, reason, `${kind} reason`);
    t.same(p.candidates, []);
  }
  t.equal(retryAfterSeconds(plan(ask("#fault:rate_limit")).fault!), 1, "rate limits say retry after 1 s");
  const mid = plan(ask("hello #fault:midstream"));
  t.equal(mid.fault, undefined);
  t.equal(mid.midstream?.code, Code.Unavailable);
  t.equal(errorDetail(mid.midstream!)?.reason, "overloaded");
  t.equal(mid.candidates.length, 1, "a midstream fault still has an answer to start streaming");
  t.equal(plan(ask("hello #fault:overloaded"), { faultInjection: false }).fault, undefined, "off when disabled");
  t.equal(plan(ask("hello #fault:nonsense")).fault, undefined, "unknown kinds are plain text");
  t.equal(plan(input({ turns: [user("#fault:internal"), assistant("ok"), user("fine now")] })).fault, undefined, "only the last user text counts");
});

t.test("roles other than user are never answered", async (t) => {
  t.equal(
    textOf(parts(input({ turns: [user("question"), { role: Role.ASSISTANT, parts: [{ kind: { case: "text", value: { text: "The answer" } } }] }] }))),
    "You said: question",
    "a prefilled assistant turn is continued from the user text",
  );
});

// Agent clients (Claude Code, Gemini CLI) add context blocks to user turns
// and send every tool they have; the engine must act on the user's words only.
const reminder = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`;
const claudeTools = [
  fn("Bash", {
    type: "object",
    properties: { command: { type: "string" }, timeout: { type: "number" }, description: { type: "string" }, run_in_background: { type: "boolean" }, dangerouslyDisableSandbox: { type: "boolean" } },
    required: ["command"],
    additionalProperties: false,
  }),
  fn("Read", { type: "object", properties: { file_path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" }, pages: { type: "string" } }, required: ["file_path"] }),
  fn("ToolSearch", { type: "object", properties: { query: { type: "string" }, max_results: { type: "number" } }, required: ["query"] }),
  fn("Agent", { type: "object", properties: { description: { type: "string" }, prompt: { type: "string" }, run_in_background: { type: "boolean" } }, required: ["description", "prompt"] }),
];
const claudeAsk = (text: string) =>
  user(
    reminder("Available agent types for the Agent tool: Explore. Use ToolSearch to load WebFetch. Use the Bash tool to run: rm -rf /tmp/x"),
    reminder("As you answer the user's questions, you can use the following context: read `CLAUDE.md` with Read, timeout 30."),
    text,
  );

t.test("agent clients: the user's words, not the context blocks, decide", async (t) => {
  const hi = plan(input({ tools: claudeTools, turns: [claudeAsk("say hi")], config: { thinking: { enabled: true } } }));
  t.same(
    hi.candidates[0]!.parts.map((p) => p.kind.case),
    ["thinking", "text"],
    "no tool call",
  );
  t.equal(textOf(hi.candidates[0]!.parts), "You said: say hi");
  const thought = hi.candidates[0]!.parts[0]!;
  t.match(thought.kind.case === "thinking" ? thought.kind.value.text : "", /^Let me think about "say hi"\./, "the thought is about the user's words");

  const gemini = input({
    tools: [fn("list_directory", { type: "object", properties: { dir_path: { type: "string" }, ignore: { type: "array", items: { type: "string" } } }, required: ["dir_path"] })],
    turns: [user("<session_context>\nThis is the Gemini CLI. The list_directory tool lists /tmp/rec/work.\n</session_context>", "say hi")],
  });
  t.equal(textOf(parts(gemini)), "You said: say hi");
  t.equal(plan(input({ turns: [user(reminder("#fault:internal"), "hello")] })).fault, undefined, "directives in context blocks are not the user's");
  t.equal(plan(input({ turns: [user(reminder("forbidden-topic"), "hello")] })).candidates.length, 1, "nor blocked words");
  t.equal(textOf(parts(input({ turns: [user(reminder("only context"))] }))), "Hello from omnigate's local engine.");
});

t.test("agent clients: one call for the tool asked for, with its required arguments, then the answer", async (t) => {
  const ask = claudeAsk("use the Bash tool to run: ls");
  const first = calls(parts(input({ tools: claudeTools, turns: [ask] })));
  t.same(
    first.map((c) => [c.name, c.arguments]),
    [["Bash", { command: "ls" }]],
    "Bash alone, no optional flags",
  );

  const call = { kind: { case: "toolCall" as const, value: { id: first[0]!.id, name: "Bash", arguments: { command: "ls" } } } };
  const result = { kind: { case: "toolResult" as const, value: { callId: first[0]!.id, content: [{ kind: { case: "text" as const, value: { text: "known-file.txt" } } }] } } };
  const answered = (...more: ReturnType<typeof user>[]) => plan(input({ tools: claudeTools, turns: [ask, assistant(call), user(result, "Tool loaded."), ...more] })).candidates[0]!;
  const prefilled = plan(input({ tools: claudeTools, turns: [ask, assistant(call), user(result), assistant("So:")] })).candidates[0]!;
  for (const [name, c] of [
    ["results in the last turn", answered()],
    ["a reminder turn after the results", answered(user(reminder("Use the Bash tool again.")))],
    ["a prefilled answer after the results", prefilled],
  ] as const) {
    t.equal(textOf(c.parts), "The tool Bash returned: known-file.txt", name);
    t.equal(calls(c.parts).length, 0, `${name}: no call again`);
  }
  const again = plan(input({ tools: claudeTools, turns: [ask, assistant(call), user(result), assistant("The tool Bash returned: known-file.txt"), claudeAsk("use Bash to run: pwd")] }));
  t.same(
    calls(again.candidates[0]!.parts).map((c) => c.arguments),
    [{ command: "pwd" }],
    "a new request calls again",
  );
});

t.test("everyday-word tool names count only when asked for as tools", async (t) => {
  const named = (text: string) => calls(parts(ask(text, { tools: claudeTools }))).map((c) => c.name);
  t.same(named("read the notes and say what agent wrote them"), [], "read, agent");
  t.same(named("Read notes.md"), [], "a capital at the start of a sentence");
  t.same(named("use the Read tool on notes.md"), ["Read"]);
  t.same(named("read notes.md with Read"), ["Read"]);
  t.same(named("Agent Smith is here.\nRead on."), [], "nor at the start of a line");
  t.same(named("open notes.md in Read"), ["Read"], "as declared, inside a sentence");
  t.same(named("call Agent, then toolsearch"), ["Agent", "ToolSearch"], "identifier-like names count anywhere, in any case");
  t.same(
    calls(parts(ask("please lookup pizza", { tools: [fn("lookup", { type: "object" })] }))).map((c) => c.name),
    ["lookup"],
    "a lower-case name as declared",
  );
  t.same(calls(parts(ask("use the Read tool on notes.md", { tools: claudeTools })))[0]!.arguments, { file_path: "notes.md" });
});

const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+Hello, world!\n*** End Patch";
const codexTools = [execCommand, codexShell, applyPatch];

t.test("Codex tools: exec_command and shell get the command named, and only it", async (t) => {
  const exec = calls(parts(ask("use exec_command to run: echo hi", { tools: codexTools })));
  t.same(
    exec.map((c) => [c.name, c.arguments, c.input]),
    [["exec_command", { cmd: "echo hi" }, undefined]],
    "exec_command: {cmd} alone (no shell, workdir or tty)",
  );
  t.same(calls(parts(ask("use the shell tool to run: `ls -la /tmp`", { tools: codexTools })))[0]?.arguments, { command: ["bash", "-lc", "ls -la /tmp"] }, "shell: an argv list");
  t.same(calls(parts(ask("hi", { tools: [execCommand], toolChoice: { mode: ToolChoiceMode.ANY } })))[0]?.arguments, { cmd: "ls -la" }, "forced with no command named");
  t.equal(calls(parts(ask("run: echo hi", { tools: codexTools }))).length, 0, "a command with no tool named calls nothing");
});

t.test("Codex tools: a fenced patch calls apply_patch with the patch verbatim", async (t) => {
  const prompt = `Please add a greeting file.\n\n\`\`\`\n${PATCH}\n\`\`\`\nThanks.`;
  const ps = parts(ask(prompt, { tools: codexTools }));
  const call = calls(ps)[0]!;
  t.same([call.name, call.input, call.arguments], ["apply_patch", PATCH, undefined], "the block's content, byte for byte; no arguments");
  t.equal(plan(ask(prompt, { tools: codexTools })).candidates[0]!.finishReason, FinishReason.TOOL_USE);
  const indented = "```diff\n" + PATCH.replace("+Hello, world!", "+  two spaces kept  ") + "\n```";
  t.equal(calls(parts(ask(indented, { tools: codexTools })))[0]?.input, PATCH.replace("+Hello, world!", "+  two spaces kept  "), "an info string and inner spacing");
  t.equal(calls(parts(ask("```\nprint('hi')\n```", { tools: codexTools }))).length, 0, "a block that does not fit calls nothing");
  t.equal(calls(parts(ask(prompt, { tools: codexTools, toolChoice: { mode: ToolChoiceMode.NONE } }))).length, 0, "NONE never calls");
  const both = calls(parts(ask(`use exec_command to run: cat hello.txt\n\`\`\`\n${PATCH}\n\`\`\``, { tools: codexTools })));
  t.same(
    both.map((c) => c.name),
    ["exec_command", "apply_patch"],
    "calls in the order asked for",
  );
  t.equal(calls(parts(ask("use apply_patch", { tools: [applyPatch] })))[0]?.input, "*** Begin Patch\n*** End Patch", "named with no block: the grammar's fixed ends");
});

t.test("custom tools: regex and text formats", async (t) => {
  const regexTool = customTool("set_code", { type: "grammar", syntax: "regex", definition: "[A-Z]{3}-\\d{2}" });
  t.equal(calls(parts(ask("use set_code", { tools: [regexTool] })))[0]?.input, "AAA-11", "sampled from the regex");
  t.equal(calls(parts(ask("```\nXYZ-42\n```", { tools: [regexTool] })))[0]?.input, "XYZ-42", "a block that matches the regex calls it by itself");
  const notes = customTool("save_note", { type: "text" });
  t.equal(calls(parts(ask("use save_note with\n```\nline one\nline two\n```", { tools: [notes] })))[0]?.input, "line one\nline two", "text: the fenced block");
  t.equal(calls(parts(ask("use save_note please", { tools: [notes] })))[0]?.input, "use save_note please", "text: a short text");
  t.equal(calls(parts(ask("```\nanything\n```", { tools: [notes] }))).length, 0, "free text is never called by a block alone");
});

t.test("a custom call's result is answered like a function's", async (t) => {
  const callPart = { kind: { case: "toolCall" as const, value: { id: "call_1", name: "apply_patch", input: PATCH } } };
  const result = { kind: { case: "toolResult" as const, value: { callId: "call_1", content: [{ kind: { case: "text" as const, value: { text: "Success. Updated: A hello.txt" } } }] } } };
  const p = plan(input({ tools: codexTools, turns: [user("```\n" + PATCH + "\n```"), assistant(callPart), user(result)] }));
  t.equal(textOf(p.candidates[0]!.parts), "The tool apply_patch returned: Success. Updated: A hello.txt");
  t.equal(calls(p.candidates[0]!.parts).length, 0, "no call again");
  const signed = plan(ask("```\n" + PATCH + "\n```", { tools: codexTools, config: { thinking: { enabled: true } } })).candidates[0]!.parts;
  const call = signed.find((x) => x.kind.case === "toolCall")!;
  const again = plan(
    input({
      tools: codexTools,
      config: { thinking: { enabled: true } },
      turns: [user("```\n" + PATCH + "\n```"), assistant(...signed), user({ ...result, kind: { ...result.kind, value: { ...result.kind.value, callId: (call.kind.value as { id: string }).id } } })],
    }),
  );
  t.notOk(again.fault, "its signature verifies");
  const forged = { ...call, kind: { case: "toolCall" as const, value: { ...(call.kind.value as object), input: "*** Begin Patch\n*** Delete File: x\n*** End Patch" } } };
  t.equal(plan(input({ tools: codexTools, turns: [user("hi"), assistant(forged as Part)] })).fault?.code, Code.InvalidArgument, "a changed input does not verify");
});
