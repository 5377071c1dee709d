// The --ar parameter of a prompt, as the local engine reads it. Pure.

/** The prompt's --ar (or --aspect) as w:h; 1:1 when absent, malformed or beyond 4:1. */
export function aspectOfPrompt(prompt: string): { w: number; h: number } {
  const m = /(?:^|\s)--(?:ar|aspect)\s+(\d{1,3})\s*:\s*(\d{1,3})(?=\s|$)/i.exec(prompt);
  if (!m) return { w: 1, h: 1 };
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w < 1 || h < 1 || w / h > 4 || h / w > 4) return { w: 1, h: 1 };
  return { w, h };
}

/** The simplest w:h for a size ("5:4" for 1280x1024). */
export function ratioOf(width: number, height: number): string {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(width, height) || 1;
  let w = width / g;
  let h = height / g;
  if (w > 32 || h > 32) {
    const r = width / height;
    const common = [
      [1, 1],
      [5, 4],
      [4, 3],
      [3, 2],
      [16, 10],
      [16, 9],
      [2, 1],
      [21, 9],
      [4, 5],
      [3, 4],
      [2, 3],
      [10, 16],
      [9, 16],
      [1, 2],
    ] as const;
    [w, h] = common.reduce((best, c) => (Math.abs(c[0] / c[1] - r) < Math.abs(best[0] / best[1] - r) ? c : best), common[0]);
  }
  return `${w}:${h}`;
}
