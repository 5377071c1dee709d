// Settlement: the one place a call is closed. It gives back the rate-limit
// slot, charges what the call really cost (never more than it reserved on a
// key with a budget) or refunds the reservation when it produced nothing,
// counts its tokens against the key's tokens-per-minute limit, and writes its
// one usage record. A call a tenancy gate refused gets a record too,
// `rejected:<reason>`.
import type { DescMethod } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { recordQuietly, type UsageStore } from "../../storage/types.js";
import type { Call } from "../call/call.js";
import { errorDetail } from "../errors.js";
import type { Ticket } from "./admission.js";
import type { Budgets } from "./budget.js";
import type { RateLimiter } from "./limiter.js";
import type { Meter } from "./meters.js";
import type { PriceTable } from "./prices.js";
import { GATE } from "./scope.js";

/** How a call ended. */
export interface Outcome {
  /** The response (of a stream: what its tally amounts to); undefined when there is none to price. */
  res: unknown;
  /** What it failed with, if it did. */
  error?: ConnectError | undefined;
  /** The caller went away (or stopped reading) before the end. */
  canceled?: boolean;
}

export interface SettlementDeps {
  limiter: RateLimiter;
  budgets: Budgets;
  prices: PriceTable;
  meters: Map<DescMethod, Meter>;
  /** Where usage records go; unset: none are written. */
  usage?: UsageStore | undefined;
  now?: () => number;
}

export interface Settlement {
  /** Closes the call; a promise only when money or tokens have to be written. */
  settle(ticket: Ticket, outcome: Outcome): void | Promise<void>;
  /** Records a refusal by a tenancy gate (others are not recorded). */
  refused(method: DescMethod, req: unknown, call: Call, err: ConnectError, started: number): void;
}

/** The client-facing model of a request, where its message has one. */
function modelOf(message: unknown): string {
  const m = message as { input?: { model?: string }; options?: { model?: string }; model?: string } | undefined;
  return m?.input?.model ?? m?.options?.model ?? m?.model ?? "";
}

export function settlement(deps: SettlementDeps): Settlement {
  const now = deps.now ?? Date.now;

  /** What the call is charged, and the budget write that charges it (undefined: none needed). */
  function charge(t: Ticket, meter: Meter, res: unknown): { credits: number; write: Promise<void> | undefined } {
    const p = t.call.principal;
    const hold = t.hold && t.hold.reserved > 0 ? t.hold : undefined;
    if (res === undefined) return { credits: 0, write: hold?.refund() };
    const cost = meter.cost(deps.prices, t.req, res);
    const credits = p.budget > 0 ? Math.min(cost, hold?.reserved ?? 0) : cost;
    // A call whose price was unknown before it ran (nothing reserved) is charged after the fact.
    if (hold) return { credits, write: hold.settle(credits) };
    return { credits, write: credits > 0 ? deps.budgets.charge(p.keyId, credits) : undefined };
  }

  return {
    settle(t, outcome) {
      t.release?.();
      const meter = t.meter;
      if (!meter) return;
      const { credits, write } = charge(t, meter, outcome.res);
      const u = meter.usage(t.req, outcome.res);
      const p = t.call.principal;
      const tokens = meter.countsTokens && p.limits.tokensPerMinute > 0 ? deps.limiter.consumeTokens(p.keyId, p.limits, u.inputTokens + u.outputTokens) : undefined;
      if (deps.usage) {
        const failed = outcome.error;
        const status = outcome.canceled ? "canceled" : failed ? `error:${failed.code}` : outcome.res === undefined ? "ok" : (meter.status?.(outcome.res) ?? "ok");
        recordQuietly(deps.usage, {
          time: t.started,
          keyId: p.keyId,
          format: t.call.format,
          ...u,
          // A failure names the channel that failed, where the error says.
          channel: u.channel || String(failed ? (errorDetail(failed)?.metadata.channel ?? "") : ""),
          credits,
          status,
          latencyMs: now() - t.started,
          requestId: t.call.requestId,
        });
      }
      if (write && tokens) return Promise.all([write, tokens]).then(() => undefined);
      return write ?? tokens;
    },
    refused(method, req, call, err, started) {
      const detail = errorDetail(err);
      if (!deps.usage || detail?.metadata.gate !== GATE.gate) return;
      recordQuietly(deps.usage, {
        time: started,
        keyId: call.principal.keyId,
        format: call.format,
        model: deps.meters.get(method)?.model(req) || modelOf(req),
        channel: "",
        inputTokens: 0,
        outputTokens: 0,
        images: 0,
        seconds: 0,
        credits: 0,
        status: `rejected:${detail.reason}`,
        latencyMs: now() - started,
        requestId: call.requestId,
      });
    },
  };
}
