// Channel cooldown: a channel that fails `after` times in a row is skipped
// for its cooldown time (the router still tries it last rather than never).
// Any success resets the count.
export interface CooldownTracker {
  fail(channel: string, cooldownMs: number): void;
  ok(channel: string): void;
  cooling(channel: string): boolean;
}

export function cooldownTracker(after: number, now: () => number): CooldownTracker {
  const state = new Map<string, { failures: number; until: number }>();
  return {
    fail(channel, cooldownMs) {
      const s = state.get(channel) ?? { failures: 0, until: 0 };
      s.failures++;
      if (after > 0 && s.failures >= after && cooldownMs > 0) {
        s.until = now() + cooldownMs;
        s.failures = 0;
      }
      state.set(channel, s);
    },
    ok(channel) {
      state.delete(channel);
    },
    cooling(channel) {
      const s = state.get(channel);
      return !!s && s.until > now();
    },
  };
}
