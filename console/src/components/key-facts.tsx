// A key's budget and limits at a glance (the Keys list and the Usage page's key filter).
import type { Key } from "../lib/api";
import { fmtCredits, fmtNum } from "../lib/format";

/** "spent / budget" with a bar that turns amber at 80 % and red once the budget is used up. */
export function BudgetMeter({ spent, budget }: { spent: number; budget: number }) {
  if (!budget) {
    return (
      <div className="budget" data-testid="key-budget" data-spent={spent} data-budget={0}>
        <span>{fmtCredits(spent)}</span> <span className="muted">spent · no budget</span>
      </div>
    );
  }
  const pct = Math.min(100, (spent / budget) * 100);
  const tone = pct >= 100 ? "bad" : pct >= 80 ? "warn" : "ok";
  return (
    <div className="budget" data-testid="key-budget" data-spent={spent} data-budget={budget}>
      <span>
        {fmtCredits(spent)} / {fmtCredits(budget)}
      </span>{" "}
      <span className="muted">({fmtNum(pct, pct < 10 && pct > 0 ? 1 : 0)}%)</span>
      <div className={`meter tone-${tone}`} role="meter" aria-valuemin={0} aria-valuemax={budget} aria-valuenow={spent} aria-label="Budget used">
        <div style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/** "60 rpm · 10K tpm · 2 concurrent", or "no limits". */
export function limitsText(l: Key["limits"]): string {
  const compact = (n: number) => n.toLocaleString(undefined, { notation: n >= 10_000 ? "compact" : "standard", maximumFractionDigits: 1 });
  return (
    [
      l.requestsPerMinute && `${compact(l.requestsPerMinute)} rpm`,
      l.tokensPerMinute && `${compact(l.tokensPerMinute)} tpm`,
      l.concurrentRequests && `${l.concurrentRequests} concurrent`,
    ]
      .filter(Boolean)
      .join(" · ") || "no limits"
  );
}
