// Custom tools' inputs in the local engine: fenced blocks, a Lark grammar's
// fixed ends, which blocks fit which grammars.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { CustomToolSchema } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { customInput, fitsTool, larkEdges } from "../../../../src/providers/local/chat/custom-input.js";
import { fencedBlocks, promptHints } from "../../../../src/providers/local/chat/prompt.js";
import { APPLY_PATCH_GRAMMAR } from "./fixtures.js";

t.test("fenced blocks", async (t) => {
  const cases: Array<[string, string, { content: string; at: number }[]]> = [
    ["none", "no block here", []],
    ["one", "see:\n```\na\nb\n```\nend", [{ content: "a\nb", at: 5 }]],
    ["info string, tildes", "~~~diff\n+x\n~~~", [{ content: "+x", at: 0 }]],
    ["a longer fence holds a shorter one", "````\n```\nin\n```\n````", [{ content: "```\nin\n```", at: 0 }]],
    [
      "two",
      "```\n1\n```\n```\n2\n```",
      [
        { content: "1", at: 0 },
        { content: "2", at: 10 },
      ],
    ],
    ["empty", "```\n```", [{ content: "", at: 0 }]],
    ["unclosed", "```\nnever closed", []],
    ["CRLF", "```\r\nx\r\n```", [{ content: "x\r", at: 0 }]],
  ];
  for (const [name, text, want] of cases) t.same(fencedBlocks(text), want, name);
});

t.test("a Lark grammar's fixed ends", async (t) => {
  const cases: Array<[string, string, { lead?: string; trail?: string }]> = [
    ["apply_patch", APPLY_PATCH_GRAMMAR, { lead: "*** Begin Patch", trail: "*** End Patch" }],
    ["optional item after the start", APPLY_PATCH_GRAMMAR.replace("start: begin_patch hunk+", "start: begin_patch environment_id? hunk+"), { lead: "*** Begin Patch", trail: "*** End Patch" }],
    ["terminals", 'start: BEGIN body END\nBEGIN: "<<"\nEND: ">>"\nbody: /.+/', { lead: "<<", trail: ">>" }],
    ["alternatives have no single end", 'start: "a" | "b"', {}],
    ["an optional first item", 'start: "x"? "y" "z"', { trail: "z" }],
    ["a regex at the end", 'start: "cmd " /\\w+/', { lead: "cmd" }],
    ["no start rule: the first", 'top: "<" x ">"\nx: /./', { lead: "<", trail: ">" }],
    ["a cycle", "start: a\na: start", {}],
    ["empty", "", {}],
  ];
  for (const [name, grammar, want] of cases) t.same(larkEdges(grammar), want, name);
});

const tool = (format?: Record<string, string>) => create(CustomToolSchema, { name: "t", ...(format ? { format } : {}) });
const lark = tool({ type: "grammar", syntax: "lark", definition: APPLY_PATCH_GRAMMAR });
const regex = tool({ type: "grammar", syntax: "regex", definition: "v\\d+\\.\\d+" });

t.test("which blocks fit", async (t) => {
  const cases: Array<[string, ReturnType<typeof tool>, string, boolean]> = [
    ["a patch", lark, "*** Begin Patch\n*** Delete File: x\n*** End Patch", true],
    ["a patch with a trailing newline", lark, "*** Begin Patch\n*** Delete File: x\n*** End Patch\n", true],
    ["no end", lark, "*** Begin Patch\n*** Delete File: x", false],
    ["code", lark, "print(1)", false],
    ["a regex match", regex, "v1.2", true],
    ["a regex match must be whole", regex, "see v1.2", false],
    ["free text never fits", tool({ type: "text" }), "anything", false],
    ["no format never fits", tool(), "anything", false],
  ];
  for (const [name, tl, content, want] of cases) t.equal(fitsTool(tl, content), want, name);
});

t.test("inputs", async (t) => {
  const patch = "*** Begin Patch\n*** Delete File: x\n*** End Patch";
  const cases: Array<[string, ReturnType<typeof tool>, string, string]> = [
    ["the fitting block, not the first", lark, "```\ncode\n```\n```\n" + patch + "\n```", patch],
    ["no fitting block: the first block", lark, "```\ncode\n```", "code"],
    ["no block: the grammar's ends", lark, "patch it", "*** Begin Patch\n*** End Patch"],
    ["a regex sample", regex, "bump it", "v1.1"],
    ["text: the block", tool({ type: "text" }), "save\n```\nnote\n```", "note"],
    ["text: the words", tool(), "save this", "save this"],
  ];
  for (const [name, tl, said, want] of cases) t.equal(customInput(tl, promptHints(said)), want, name);
});
