// What the money-path tests share: a principal, a fake auth step, call
// options per format, error readers, and the real Budgets over an in-memory key store that logs every step.
import { ConnectError, createContextValues, type Interceptor } from "@connectrpc/connect";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { formatKey, principalKey, requestIdKey, type Principal } from "../../../src/core/context.js";
import { budgets, type Budgets } from "../../../src/core/tenancy/budget.js";
import type { Limits } from "../../../src/core/tenancy/limiter.js";
import type { KeyStore } from "../../../src/storage/types.js";

export const NO_LIMITS: Limits = { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 };
export const principal = (p: Partial<Principal> = {}): Principal => ({ keyId: "k1", name: "test", admin: false, formats: [], models: [], limits: NO_LIMITS, budget: 0, ...p });

/** Puts the principal and a request id into the call, as the auth interceptor does. */
export const asCaller =
  (p: Principal): Interceptor =>
  (next) =>
  (req) => {
    req.contextValues.set(principalKey, p);
    req.contextValues.set(requestIdKey, "rid-1");
    return next(req);
  };

/** The real Budgets over an in-memory key store, logging every reserve, settle, refund and charge. */
export function ledger(budget: number, spent = 0) {
  const row = { budget, spent };
  const store: Pick<KeyStore, "reserveCredits" | "adjustSpent"> = {
    async reserveCredits(_id, amount) {
      if (row.budget > 0 && !(row.spent + amount <= row.budget + 1e-9 && row.spent < row.budget)) return false;
      row.spent += amount;
      return true;
    },
    async adjustSpent(_id, delta) {
      row.spent = Math.max(0, row.spent + delta);
    },
  };
  const inner = budgets(store as KeyStore);
  const events: string[] = [];
  const b: Budgets = {
    async reserve(key, amount) {
      events.push(`reserve ${amount}`);
      const h = await inner.reserve(key, amount);
      return {
        reserved: h.reserved,
        settle: async (actual) => {
          events.push(`settle ${actual}`);
          await h.settle(actual);
        },
        refund: async () => {
          events.push("refund");
          await h.refund();
        },
      };
    },
    async charge(keyId, amount) {
      events.push(`charge ${amount}`);
      await inner.charge(keyId, amount);
    },
  };
  return { budgets: b, events, spent: () => row.spent };
}

/** Call options of a call that entered in `format`. */
export const as = (format: string) => ({ contextValues: createContextValues().set(formatKey, format) });

/** The ConnectError a call failed with (undefined when it succeeded). */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );

/** The reason of a refusal's ErrorDetail. */
export const reasonOf = (e: ConnectError | undefined) => e?.findDetails(ErrorDetailSchema)[0]?.reason;
