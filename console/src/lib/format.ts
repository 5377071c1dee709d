export const fmtTime = (ms: number | null | undefined): string => (ms ? new Date(ms).toLocaleString() : "—");

export const fmtAgo = (ms: number | null | undefined, now = Date.now()): string => {
  if (!ms) return "—";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
};

export const fmtNum = (n: number, digits = 0): string => n.toLocaleString(undefined, { maximumFractionDigits: digits, minimumFractionDigits: 0 });

export const fmtCredits = (n: number): string => n.toLocaleString(undefined, { maximumFractionDigits: 4 });
