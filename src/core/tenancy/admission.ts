// Admission: what a call must pass before its service runs, in order: the
// key's format scope, the model scope, a rate-limit slot (held until the call
// settles), and a budget reservation of the most the call can cost. What it
// returns is the ticket settlement closes. Bookkeeping methods (a stored
// response's save and reads, made around an admitted chat call) take no slot:
// a save made while its own stream still holds one would refuse itself.
import type { DescMethod } from "@bufbuild/protobuf";
import type { Call } from "../call/call.js";
import type { Budgets, Hold } from "./budget.js";
import { hasLimits, type RateLimiter, type Release } from "./limiter.js";
import type { Meter, Tally } from "./meters.js";
import type { PriceTable } from "./prices.js";
import { checkFormat, checkModel } from "./scope.js";

/** An admitted call: what settlement needs to close it. */
export interface Ticket {
  readonly call: Call;
  readonly method: DescMethod;
  readonly req: unknown;
  /** When the call started (ms), for its record. */
  readonly started: number;
  readonly meter: Meter | undefined;
  readonly hold: Hold | undefined;
  readonly release: Release | undefined;
  /** A streamed, metered call's tally. */
  readonly tally: Tally | undefined;
}

export interface AdmissionDeps {
  limiter: RateLimiter;
  budgets: Budgets;
  prices: PriceTable;
  meters: Map<DescMethod, Meter>;
  /** Methods that take no rate-limit slot. */
  unlimited?: ReadonlySet<DescMethod>;
}

export interface Admission {
  /**
   * Admits the call or throws the gate's refusal (PermissionDenied,
   * ResourceExhausted). Synchronous when there is no slot to take and nothing
   * to reserve, as for most calls of keys without limits or budgets.
   */
  admit(method: DescMethod, req: unknown, call: Call, started: number): Ticket | Promise<Ticket>;
}

export function admission(deps: AdmissionDeps): Admission {
  async function held(method: DescMethod, req: unknown, call: Call, started: number, meter: Meter | undefined, estimate: number, limited: boolean): Promise<Ticket> {
    const p = call.principal;
    const release = limited ? await deps.limiter.acquire(p.keyId, p.limits) : undefined;
    let hold: Hold | undefined;
    try {
      if (meter) hold = await deps.budgets.reserve(p, estimate);
    } catch (err) {
      release?.();
      throw err;
    }
    return { call, method, req, started, meter, hold, release, tally: meter?.tally?.(req) };
  }

  return {
    admit(method, req, call, started) {
      const p = call.principal;
      checkFormat(p, call.format);
      const meter = deps.meters.get(method);
      if (meter) {
        const model = meter.model(req);
        if (model) checkModel(p, model);
      }
      const estimate = meter ? meter.estimate(deps.prices, req, p) : 0;
      // A key with a budget is checked even for a call that costs nothing.
      const limited = hasLimits(p.limits) && !deps.unlimited?.has(method);
      if (limited || (meter && (estimate > 0 || p.budget > 0))) return held(method, req, call, started, meter, estimate, limited);
      return { call, method, req, started, meter, hold: undefined, release: undefined, tally: meter?.tally?.(req) };
    },
  };
}
