// sparse() parses exactly as z.object does (data, key order, issues and
// their paths and messages), only faster: checked against z.object over
// generated values, inside wrappers, and past the cap on kept variants.
import t from "tap";
import { z } from "zod";
import { MAX_VARIANTS, sparse } from "../../../src/facades/shared/sparse-object.js";

const shape = () => ({
  name: z.string().min(1),
  count: z.number().int().min(1).optional(),
  ratio: z.number().max(1).optional(),
  flag: z.boolean().optional(),
  tags: z.array(z.string()).max(2).optional(),
  mode: z.enum(["A", "B"]).optional(),
  nested: z.object({ x: z.number() }).optional(),
  free: z.unknown().optional(),
  level: z.number().default(3),
  note: z.string().optional(),
});

const whole = z.object(shape());
const sparseSchema = sparse(z.object(shape()));

/** What a parse gives, comparable across the two schemas. */
function outcome(s: z.ZodType, v: unknown, opts?: Parameters<z.ZodType["safeParse"]>[1]) {
  const r = s.safeParse(v, opts);
  return r.success
    ? { ok: true, data: r.data, keys: Object.keys(r.data as object) }
    : { ok: false, issues: r.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message, input: (i as { input?: unknown }).input })) };
}

const good: Record<string, unknown> = { count: 2, ratio: 0.5, flag: true, tags: ["a"], mode: "B", nested: { x: 1 }, free: { any: [1] }, level: 9, note: "n" };
const bad: Record<string, unknown> = { count: 0, ratio: 2, flag: "yes", tags: ["a", "b", "c"], mode: "C", nested: { x: "1" }, free: undefined, level: "x", note: 5 };
const optionalKeys = Object.keys(good);

t.test("every combination of present, valid and invalid fields parses alike", async (t) => {
  // A fixed pseudo-random walk over the 3^9 combinations (absent, good, bad) and name present/absent/bad.
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 600; i++) {
    const v: Record<string, unknown> = {};
    const nameCase = rnd(3);
    if (nameCase === 1) v.name = "n";
    if (nameCase === 2) v.name = "";
    for (const k of optionalKeys) {
      const c = rnd(3);
      if (c === 1) v[k] = good[k];
      if (c === 2) v[k] = bad[k];
    }
    if (rnd(4) === 0) v.unknownKey = 1;
    t.same(outcome(sparseSchema, v), outcome(whole, v), JSON.stringify(v));
    t.same(outcome(sparseSchema, v, { reportInput: true }), outcome(whole, v, { reportInput: true }));
    if (whole.safeParse(v).success) accepted++;
    else refused++;
  }
  // The walk is worth something only if it reaches both outcomes often.
  t.ok(accepted >= 5 && refused >= 5, `${accepted} accepted, ${refused} refused`);
});

t.test("values that are not objects get the object's own error", async (t) => {
  for (const v of [null, undefined, "x", 3, [], [{ name: "n" }], true]) t.same(outcome(sparseSchema, v), outcome(whole, v), String(JSON.stringify(v)));
});

t.test("key order, defaults and unknown keys are z.object's", async (t) => {
  const r = sparseSchema.parse({ note: "z", unknown: 1, name: "a", count: 3 });
  t.same(Object.keys(r), ["name", "count", "level", "note"]);
  t.equal(r.level, 3, "a default applies when its key is absent");
  t.same(Object.keys(whole.parse({ note: "z", unknown: 1, name: "a", count: 3 })), Object.keys(r));
});

t.test("inside optional, array and pipe wrappers, and with abortEarly-free nesting", async (t) => {
  const outerWhole = z.object({ list: z.array(whole).optional(), one: whole.optional(), piped: z.preprocess((v) => v, whole).optional() });
  const outerSparse = z.object({ list: z.array(sparseSchema).optional(), one: sparseSchema.optional(), piped: z.preprocess((v) => v, sparseSchema).optional() });
  const values = [
    { list: [{ name: "a" }, { name: "", count: 0 }, { name: "b", mode: "B" }] },
    { one: { name: "x", nested: { x: "no" } } },
    { piped: { name: "y", tags: ["1", "2", "3"], flag: false } },
    { list: [null, 4], one: null },
  ];
  for (const v of values) t.same(outcome(outerSparse, v), outcome(outerWhole, v), JSON.stringify(v));
});

t.test("past the cap on variants the whole schema runs, with the same results", async (t) => {
  const s = sparse(z.object(shape()));
  const w = z.object(shape());
  // 2^9 = 512 combinations of the optional keys, all valid.
  let same = 0;
  for (let mask = 0; mask < 2 ** optionalKeys.length; mask++) {
    const v: Record<string, unknown> = { name: "n" };
    optionalKeys.forEach((k, i) => {
      if (mask & (1 << i)) v[k] = good[k];
    });
    if (JSON.stringify(outcome(s, v)) === JSON.stringify(outcome(w, v))) same++;
  }
  t.ok(2 ** optionalKeys.length > MAX_VARIANTS, "the walk goes past the cap");
  t.equal(same, 2 ** optionalKeys.length);
});

t.test("objects with few optional fields are plain z.objects", async (t) => {
  const few = sparse(z.object({ a: z.string(), b: z.number().optional() }));
  t.same(few.parse({ a: "x", b: 1, c: 2 }), { a: "x", b: 1 });
  t.same(outcome(few, { b: "1" }), outcome(z.object({ a: z.string(), b: z.number().optional() }), { b: "1" }));
});

t.test("a loose object with checks stays loose and keeps its checks", async (t) => {
  const make = () =>
    z.looseObject(shape()).superRefine((v, ctx) => {
      if (v.count !== undefined && v.flag === true) ctx.addIssue({ code: "custom", path: ["flag"], message: "flag and count do not go together" });
    });
  const w = make();
  const s = sparse(make());
  for (const v of [
    { name: "a", extra: { kept: true } },
    { name: "a", count: 1, flag: true, other: 1 },
    { name: "a", count: 0, flag: true },
    { name: "", count: 1, ratio: 2, mode: "C" },
    { count: 2 },
    "x",
  ]) {
    t.same(outcome(s, v), outcome(w, v), JSON.stringify(v));
  }
  t.same(s.parse({ name: "a", extra: 1 }), { name: "a", level: 3, extra: 1 }, "unknown keys pass through");
  const refined = s.safeParse({ name: "a", count: 2, flag: true });
  t.same(
    refined.error?.issues.map((i) => i.message),
    ["flag and count do not go together"],
    "the object's own check runs",
  );
});
