import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ChatInputSchema, ToolChoiceMode } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { forcesWebSearch, hasWebSearch } from "../../../src/core/chat/web-search.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const search = { kind: { case: "webSearch" as const, value: {} } };
const fn = (name: string) => ({ kind: { case: "function" as const, value: { name } } });
const any = (...allowedNames: string[]) => ({ mode: ToolChoiceMode.ANY, allowedNames });

const CASES: [name: string, init: Init, forced: boolean][] = [
  ["no choice", { tools: [search] }, false],
  ["auto", { tools: [search, fn("f")], toolChoice: { mode: ToolChoiceMode.AUTO } }, false],
  ["any, the search alone declared", { tools: [search], toolChoice: any() }, true],
  ["any, beside a function", { tools: [search, fn("f")], toolChoice: any() }, false],
  ["any, the search named", { tools: [search, fn("f")], toolChoice: any("web_search") }, true],
  ["any, the search and a function named", { tools: [search, fn("f")], toolChoice: any("web_search", "f") }, false],
  ["any, a function named", { tools: [search, fn("f")], toolChoice: any("f") }, false],
  ["a function called web_search, no search declared", { tools: [fn("web_search")], toolChoice: any("web_search") }, false],
  ["none", { tools: [search], toolChoice: { mode: ToolChoiceMode.NONE } }, false],
];

for (const [name, init, forced] of CASES) {
  t.equal(forcesWebSearch(create(ChatInputSchema, { model: "m", ...init })), forced, name);
}

t.equal(hasWebSearch(create(ChatInputSchema, { tools: [fn("f")] })), false);
t.equal(hasWebSearch(create(ChatInputSchema, { tools: [fn("f"), search] })), true);
