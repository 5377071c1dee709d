// Budgets: reserve before the work, settle with what it really cost, refund on
// failure. The reservation is one conditional UPDATE in storage, so a budget
// holds under any concurrency and across instances sharing the database.
import type { KeyStore } from "../../storage/types.js";
import { coreError, Code } from "../errors.js";
import { GATE } from "./scope.js";

export interface Hold {
  readonly reserved: number;
  /** Charge `actual` instead of the reservation (idempotent: only the first settle/refund counts). */
  settle(actual: number): Promise<void>;
  refund(): Promise<void>;
}

const NOOP: Hold = { reserved: 0, settle: async () => undefined, refund: async () => undefined };

export interface Budgets {
  /**
   * Reserves `amount` credits on the key or fails with PermissionDenied
   * (reason budget_exhausted). A key with a budget is checked even when
   * `amount` is 0: once its budget is used up it gets nothing, free or not.
   */
  reserve(key: BudgetKey, amount: number): Promise<Hold>;
  /** Charges after the fact (no reservation possible), never failing. */
  charge(keyId: string, amount: number): Promise<void>;
}

/** What a reservation needs to know of the key. */
export interface BudgetKey {
  keyId: string;
  /** 0: unlimited. */
  budget: number;
}

const exhausted = () => coreError(Code.PermissionDenied, "the API key's credit budget is used up", { reason: "budget_exhausted", metadata: GATE });

export function budgets(keys: KeyStore): Budgets {
  return {
    async reserve({ keyId, budget }, amount) {
      const positive = amount > 0;
      if (!keyId || (!positive && !(budget > 0))) return NOOP;
      if (!(await keys.reserveCredits(keyId, positive ? amount : 0))) throw exhausted();
      if (!positive) return NOOP;
      let done = false;
      return {
        reserved: amount,
        async settle(actual) {
          if (done) return;
          done = true;
          const delta = Math.max(0, actual) - amount;
          if (delta !== 0) await keys.adjustSpent(keyId, delta);
        },
        async refund() {
          if (done) return;
          done = true;
          await keys.adjustSpent(keyId, -amount);
        },
      };
    },
    async charge(keyId, amount) {
      if (keyId && amount > 0) await keys.adjustSpent(keyId, amount);
    },
  };
}
