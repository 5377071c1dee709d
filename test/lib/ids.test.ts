import t from "tap";
import { randomHex } from "../../src/lib/ids.js";

t.test("randomHex gives 2n lowercase hex digits", async (t) => {
  for (const n of [1, 12, 16, 256]) t.match(randomHex(n), new RegExp(`^[0-9a-f]{${2 * n}}$`), `${n} bytes`);
});

t.test("ids do not repeat, across refills of the pool", async (t) => {
  // 4 KiB pool, 12 bytes per id: 2,000 ids refill it about 6 times.
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) seen.add(randomHex(12));
  t.equal(seen.size, 2000);
  // Bytes left at the end of a pool are not reused at the start of the next one.
  const tails = new Set<string>();
  for (let i = 0; i < 400; i++) tails.add(randomHex(100));
  t.equal(tails.size, 400);
});
