import t from "tap";
import { rmSync, statSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Code } from "@connectrpc/connect";
import { create, clone } from "@bufbuild/protobuf";
import { PartSchema, SignatureSchema, type Part } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../../src/core/errors.js";
import { planChat } from "../../../../src/providers/local/chat/plan.js";
import { signPart, stableJson, verifyInputSignatures } from "../../../../src/providers/local/chat/signing.js";
import { loadSigningSecret, SIGNING_KEY_FILE } from "../../../../src/providers/local/chat/signing-key.js";
import { tempDir } from "../../../helpers/app.js";
import { ask, assistant, fn, input, SECRET, user } from "./fixtures.js";

const thinking = { config: { thinking: { enabled: true, budgetTokens: 1024 } } };
const answer = (prompt: string, more = {}) => planChat(ask(prompt, { ...thinking, ...more }), { blocklist: [], signingSecret: SECRET, faultInjection: true }).candidates[0]!.parts;
const followUp = (prior: Part[]) => input({ ...thinking, turns: [user("first"), assistant(...prior), user("and now?")] });

t.test("a signed answer sent back verifies", async (t) => {
  const prior = answer("first");
  t.same(
    prior.map((p) => p.signature?.issuer),
    ["local", "local"],
  );
  t.equal(verifyInputSignatures(followUp(prior), SECRET), undefined);
  const tool = answer("use lookup for Rome", { tools: [fn("lookup", { type: "object", properties: { city: { type: "string" }, n: { type: "number" } }, required: ["city", "n"] })] });
  t.equal(verifyInputSignatures(followUp(tool), SECRET), undefined, "tool calls verify");
  const reordered = tool.map((p) => clone(PartSchema, p));
  if (reordered[1]!.kind.case === "toolCall") reordered[1]!.kind.value.arguments = Object.fromEntries(Object.entries(reordered[1]!.kind.value.arguments!).reverse());
  t.equal(verifyInputSignatures(followUp(reordered), SECRET), undefined, "argument key order does not matter");
});

t.test("tampering gives InvalidArgument invalid_signature naming the part", async (t) => {
  const prior = answer("first");
  const cases: Array<[string, (ps: Part[]) => void, string]> = [
    ["tampered value", (ps) => (ps[0]!.signature!.value = "AAAA" + ps[0]!.signature!.value.slice(4)), "turns[1].parts[0].signature"],
    ["tampered thinking text", (ps) => ps[0]!.kind.case === "thinking" && (ps[0]!.kind.value.text += "!"), "turns[1].parts[0].signature"],
    ["another secret", (ps) => (ps[1]!.signature = signPart("other", ps[1]!)), "turns[1].parts[1].signature"],
    ["empty value", (ps) => (ps[1]!.signature!.value = ""), "turns[1].parts[1].signature"],
  ];
  for (const [name, tamper, field] of cases) {
    const ps = prior.map((p) => clone(PartSchema, p));
    tamper(ps);
    const err = verifyInputSignatures(followUp(ps), SECRET);
    t.equal(err?.code, Code.InvalidArgument, name);
    t.equal(err && errorDetail(err)?.reason, "invalid_signature", name);
    t.equal(err && errorDetail(err)?.field, field, name);
  }
  const tool = answer("use lookup", { tools: [fn("lookup", { type: "object", properties: { q: { type: "string" } }, required: ["q"] })] }).map((p) => clone(PartSchema, p));
  if (tool[1]!.kind.case === "toolCall") tool[1]!.kind.value.arguments = { q: "changed" };
  t.equal(errorDetail(verifyInputSignatures(followUp(tool), SECRET)!)?.field, "turns[1].parts[1].signature", "changed tool arguments");
  const sys = input({ system: [{ kind: { case: "text", value: { text: "x" } }, signature: { issuer: "local", value: "bad" } }], turns: [user("hi")] });
  t.equal(errorDetail(verifyInputSignatures(sys, SECRET)!)?.field, "system[0].signature");
  const forged = prior.map((p) => clone(PartSchema, p));
  forged[0]!.signature = create(SignatureSchema, { issuer: "local", value: "x" });
  const fail = planChat(followUp(forged), { blocklist: [], signingSecret: SECRET, faultInjection: true });
  t.equal(fail.fault?.code, Code.InvalidArgument, "the planner fails the call");
});

t.test("other issuers, unsigned parts and redacted thinking", async (t) => {
  const foreign = create(PartSchema, { kind: { case: "thinking", value: { text: "vendor thought" } }, signature: create(SignatureSchema, { issuer: "anthropic", value: "EqQBsig==" }) });
  const redacted = create(PartSchema, { kind: { case: "redactedThinking", value: { data: "EmwKAhgB", issuer: "anthropic" } } });
  const bare = create(PartSchema, { kind: { case: "thinking", value: { text: "no signature" } } });
  const i = followUp([foreign, redacted, bare, create(PartSchema, { kind: { case: "text", value: { text: "hi" } } })]);
  t.equal(verifyInputSignatures(i, SECRET), undefined);
  t.equal(planChat(i, { blocklist: [], signingSecret: SECRET, faultInjection: true }).candidates.length, 1, "answered");
});

t.test("a thought's signature may travel on the following part, with or without the thought", async (t) => {
  const prior = answer("first").map((p) => clone(PartSchema, p));
  prior[1]!.signature = clone(SignatureSchema, prior[0]!.signature!);
  t.equal(verifyInputSignatures(followUp(prior), SECRET), undefined);
  t.equal(verifyInputSignatures(followUp([prior[1]!]), SECRET), undefined, "the thought dropped, as Gemini clients do");
  const tool = answer("use lookup for Rome", { tools: [fn("lookup", { type: "object", properties: { city: { type: "string" } }, required: ["city"] })] }).map((p) => clone(PartSchema, p));
  tool[1]!.signature = clone(SignatureSchema, tool[0]!.signature!);
  t.equal(verifyInputSignatures(followUp([tool[1]!]), SECRET), undefined, "a tool call alone, with the thought's signature");
  const sig = tool[0]!.signature!.value;
  const [, digest, mac] = sig.split(".");
  const altered: Array<[string, string]> = [
    ["another digest", `t1.${digest!.replace(/^./, (c) => (c === "A" ? "B" : "A"))}.${mac}`],
    ["another MAC", `t1.${digest}.${mac!.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`],
    ["no MAC", `t1.${digest}`],
    ["another secret", signPart("other", tool[0]!).value],
  ];
  for (const [name, value] of altered) {
    const p = clone(PartSchema, tool[1]!);
    p.signature!.value = value;
    t.equal(errorDetail(verifyInputSignatures(followUp([p]), SECRET)!)?.reason, "invalid_signature", `refused: ${name}`);
  }
});

t.test("any subset of a signed history verifies", async (t) => {
  const tool = answer("use lookup for Rome", { tools: [fn("lookup", { type: "object", properties: { city: { type: "string" } }, required: ["city"] })] });
  for (let mask = 1; mask < 1 << tool.length; mask++) {
    const subset = tool.filter((_, i) => mask & (1 << i)).map((p) => clone(PartSchema, p));
    t.equal(verifyInputSignatures(followUp(subset), SECRET), undefined, `parts ${mask.toString(2)}`);
  }
});

t.test("stable JSON", async (t) => {
  t.equal(stableJson({ b: 1, a: [{ d: null, c: "x" }] }), '{"a":[{"c":"x","d":null}],"b":1}');
});

t.test("the signing key file", async (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = loadSigningSecret(path.join(dir, "nested"));
  t.match(first, /^[0-9a-f]{64}$/);
  const file = path.join(dir, "nested", SIGNING_KEY_FILE);
  t.equal(statSync(file).mode & 0o777, 0o600, "only the owner may read it");
  t.equal(loadSigningSecret(path.join(dir, "nested")), first, "reused after a restart");
  writeFileSync(file, "");
  const replaced = loadSigningSecret(path.join(dir, "nested"));
  t.match(replaced, /^[0-9a-f]{64}$/, "an empty file is replaced");
  t.equal(readFileSync(file, "utf8").trim(), replaced);
});
