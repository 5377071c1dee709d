// Orders items by repeated weighted random draws: heavier items tend to come
// first, weight 0 goes last. Shared by every routing (chat, images, video).
export function weightedOrder<T>(items: T[], weight: (t: T) => number, rng: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (pool.length) {
    const total = pool.reduce((s, c) => s + Math.max(0, weight(c)), 0);
    let pick = 0;
    if (total > 0) {
      let r = rng() * total;
      pick = pool.findIndex((c) => (r -= Math.max(0, weight(c))) < 0);
      if (pick < 0) pick = pool.length - 1;
    }
    out.push(pool.splice(pick, 1)[0]!);
  }
  return out;
}
