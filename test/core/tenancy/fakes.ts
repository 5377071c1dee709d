// What the money-path tests share: a principal and a Call, the real Budgets
// over an in-memory key store that logs every step, the in-process limiter
// counting slots and tokens, a usage store keeping its rows, admission and
// settlement built over all of these, and error readers.
import { create, type DescMessage, type DescMethod, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import type { Call, Principal } from "../../../src/core/call/call.js";
import type { ModelResolver } from "../../../src/core/image/profiles.js";
import { admission } from "../../../src/core/tenancy/admission.js";
import { budgets, type Budgets } from "../../../src/core/tenancy/budget.js";
import { memoryLimiter, type Limits, type RateLimiter } from "../../../src/core/tenancy/limiter.js";
import { meters, UNLIMITED_METHODS } from "../../../src/core/tenancy/meters.js";
import { EMPTY_PRICES, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { settlement } from "../../../src/core/tenancy/settlement.js";
import type { KeyStore, UsageRecord, UsageStore } from "../../../src/storage/types.js";

export const NO_LIMITS: Limits = { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 };
export const principal = (p: Partial<Principal> = {}): Principal => ({ keyId: "k1", name: "test", admin: false, formats: [], models: [], limits: NO_LIMITS, budget: 0, ...p });

/** An authenticated call of `p` that came in on `format`. */
export const call = (p: Principal, format = "core", signal: AbortSignal = new AbortController().signal): Call => ({ principal: p, format, requestId: "rid-1", urlBase: "", signal });

/** The request message of `method`. */
export const message = <I extends DescMessage>(method: DescMethod & { input: I }, init: MessageInitShape<I>): MessageShape<I> => create(method.input, init);

/**
 * The real Budgets over an in-memory key store. `events` logs every reserve,
 * settle, refund and charge asked of the Budgets; `storage` every write that
 * reached the key store (a reservation of 0 on a key without a budget, or a
 * charge of 0, reaches none).
 */
export function ledger(budget: number, spent = 0) {
  const row = { budget, spent };
  const storage: string[] = [];
  const store: Pick<KeyStore, "reserveCredits" | "adjustSpent"> = {
    async reserveCredits(_id, amount) {
      storage.push(`reserveCredits ${amount}`);
      if (row.budget > 0 && !(row.spent + amount <= row.budget + 1e-9 && row.spent < row.budget)) return false;
      row.spent += amount;
      return true;
    },
    async adjustSpent(_id, delta) {
      storage.push(`adjustSpent ${delta}`);
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
  return { budgets: b, events, storage, spent: () => row.spent };
}

/** The in-process limiter at a fixed time (no refill), counting slots taken, every call of a release, and the tokens consumed. */
export function countingLimiter() {
  const inner = memoryLimiter(() => 0);
  const counts = { acquired: 0, released: 0 };
  const consumed: [string, number][] = [];
  const limiter: RateLimiter = {
    ...inner,
    async acquire(keyId, limits) {
      const release = await inner.acquire(keyId, limits);
      counts.acquired++;
      return () => {
        counts.released++;
        release();
      };
    },
    async consumeTokens(keyId, limits, tokens) {
      consumed.push([keyId, tokens]);
      await inner.consumeTokens(keyId, limits, tokens);
    },
  };
  return { limiter, counts, consumed };
}

/** A usage store keeping its rows. */
export function usageRows() {
  const rows: UsageRecord[] = [];
  const store: UsageStore = {
    record: (r) => void rows.push(r),
    query: async () => {
      throw new Error("not used");
    },
  };
  return { store, rows };
}

export interface MoneyOptions {
  prices?: PriceTable;
  /** Credits the key has spent already. */
  spent?: number;
  imageModels?: ModelResolver;
  /** false: no usage store. */
  usage?: boolean;
  now?: () => number;
}

/** Admission and settlement over one ledger, limiter and usage store, as routes.ts builds them. */
export function money(p: Principal, opts: MoneyOptions = {}) {
  const ledgered = ledger(p.budget, opts.spent);
  const limited = countingLimiter();
  const usage = usageRows();
  const deps = {
    limiter: limited.limiter,
    budgets: ledgered.budgets,
    prices: opts.prices ?? EMPTY_PRICES,
    meters: meters(opts.imageModels),
    unlimited: UNLIMITED_METHODS,
    usage: opts.usage === false ? undefined : usage.store,
    now: opts.now,
  };
  return { deps, admission: admission(deps), settlement: settlement(deps), ...ledgered, ...limited, rows: usage.rows };
}

/** The ConnectError a call failed with (undefined when it succeeded). */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );

/** The reason of a refusal's ErrorDetail. */
export const reasonOf = (e: ConnectError | undefined) => e?.findDetails(ErrorDetailSchema)[0]?.reason;

/** A record's fields that a test does not name, at their values for a call of k1 at 1000 that took 0 ms and moved nothing. */
export const record = (r: Partial<UsageRecord>): UsageRecord => ({
  time: 1000,
  keyId: "k1",
  format: "core",
  model: "",
  channel: "",
  inputTokens: 0,
  outputTokens: 0,
  images: 0,
  seconds: 0,
  credits: 0,
  status: "ok",
  latencyMs: 0,
  requestId: "rid-1",
  ...r,
});
