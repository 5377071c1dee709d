// What the local engine reads: the user's own words in the request, not the
// context blocks agent clients add to user turns.
import t from "tap";
import { Role } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { stripClientContext, userRequest } from "../../../../src/providers/local/chat/prompt.js";
import { assistant, input, user } from "./fixtures.js";

const MB = 1 << 20;
const result = (id: string, text: string) => ({ kind: { case: "toolResult" as const, value: { callId: id, content: [{ kind: { case: "text" as const, value: { text } } }] } } });

t.test("client context blocks are not the user's words", async (t) => {
  const table: Array<[string, string]> = [
    ["<system-reminder>\nToday's date is 2026-11-28. Use the Bash tool.\n</system-reminder>", ""],
    ["<system-reminder>a</system-reminder>say hi<system-reminder>b</system-reminder>", "say hi"],
    ["<session_context>\nThis is the Gemini CLI.\n</session_context>", ""],
    ['<environment_context cwd="/x">\n<shell>bash</shell>\n</environment_context>\nfix it', "fix it"],
    ["<context>the file</context> explain <b>this</b>", "explain <b>this</b>"],
    ["<environment_details>VS Code</environment_details><task>rename it</task>", "<task>rename it</task>"],
    ["<user_instructions>be brief</user_instructions><reminderInstructions>x</reminderInstructions>go", "go"],
    ["<local-command-stdout>done</local-command-stdout>", ""],
    ["a <system-reminder> never closed, and x < y", "a <system-reminder> never closed, and x < y"],
    ["plain words", "plain words"],
  ];
  for (const [text, own] of table) t.equal(stripClientContext(text), own, JSON.stringify(text));
});

t.test("the request is the last user turn with the user's own words and no tool results", async (t) => {
  const reminder = "<system-reminder>The Agent, Bash and Read tools are available.</system-reminder>";
  const call = { kind: { case: "toolCall" as const, value: { id: "toolu_1", name: "Bash", arguments: { command: "ls" } } } };
  const i = input({ turns: [user(reminder, "use the Bash tool to run: ls"), assistant(call), user(result("toolu_1", "notes.md"), "Tool loaded."), user(reminder)] });
  t.same(userRequest(i), { index: 0, said: "use the Bash tool to run: ls" }, "text beside tool results, and reminders alone, are the client's");
  t.same(userRequest(input({ turns: [user(reminder)] })), { index: -1, said: "" });
  t.same(userRequest(input({ turns: [{ role: Role.ASSISTANT, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }] })), { index: -1, said: "" });
});

t.test("a megabyte of unclosed context tags is read in one pass", async (t) => {
  // Looking for each opening's close from scratch would be quadratic: minutes, past the file's timeout.
  const text = "<system-reminder>".repeat(MB / 17) + "<context>x".repeat(MB / 10);
  t.equal(stripClientContext(text), text);
  const names = Array.from({ length: MB / 16 }, (_, i) => `<c${i}_context>`).join("");
  t.equal(stripClientContext(names + "</c0_context>ok"), "ok", "nor are many different ones");
  t.equal(stripClientContext("</context>".repeat(MB / 10) + "<context>x</context>ok"), "</context>".repeat(MB / 10) + "ok", "closes before any opening");
});
