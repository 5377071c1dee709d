// Seeded random mutation of JSON values, for the hostile-answer and
// hostile-stream tests: values of other types, keys dropped, items added or
// removed. The same seed gives the same mutations on every run.

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const JUNK: unknown[] = [null, 0, -1, 1.5, 1e308, "", "x", true, false, [], {}, [1, "a"], { a: 1 }, "NaN", "9".repeat(30), -Number.MAX_SAFE_INTEGER - 2];

/** `v` with each value replaced, dropped or (in arrays) joined by junk with probability about `p`. */
export function mutate(v: unknown, r: () => number, p: number): unknown {
  const junk = () => JUNK[Math.floor(r() * JUNK.length)];
  if (r() < p / 3) return junk();
  if (Array.isArray(v)) {
    const out = v.map((x) => mutate(x, r, p));
    if (r() < p / 4) out.push(junk());
    if (r() < p / 4 && out.length) out.splice(Math.floor(r() * out.length), 1);
    return out;
  }
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (r() < p / 5) continue;
      out[k] = r() < p ? junk() : mutate(x, r, p);
    }
    return out;
  }
  return r() < p ? junk() : v;
}
