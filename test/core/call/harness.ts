// One core service behind the real pipeline (admission, settlement, usage
// records), with a fake key check: every key but "bad" is the test principal.
// For service tests that need what a facade's call goes through, without the app.
import type { DescService } from "@bufbuild/protobuf";
import type { Authenticator } from "../../../src/core/auth/authenticator.js";
import type { CallInit, Principal } from "../../../src/core/call/call.js";
import { localClient } from "../../../src/core/call/client.js";
import { createPipeline } from "../../../src/core/call/pipeline.js";
import type { CoreClient, ServiceImpl } from "../../../src/core/call/service.js";
import type { ModelResolver } from "../../../src/core/image/profiles.js";
import { admission } from "../../../src/core/tenancy/admission.js";
import { budgets } from "../../../src/core/tenancy/budget.js";
import { memoryLimiter } from "../../../src/core/tenancy/limiter.js";
import { meters } from "../../../src/core/tenancy/meters.js";
import { EMPTY_PRICES, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { settlement } from "../../../src/core/tenancy/settlement.js";
import type { KeyStore, UsageStore } from "../../../src/storage/types.js";

export const TEST_PRINCIPAL: Principal = {
  keyId: "k1",
  name: "test",
  admin: false,
  formats: [],
  models: [],
  limits: { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 },
  budget: 0,
};

/** A call as a facade makes it; `over` replaces any part. */
export const callInit = (over: Partial<CallInit> = {}): CallInit => ({ apiKey: "test", format: "core", requestId: "rid-1", urlBase: "", signal: new AbortController().signal, ...over });

type Loose<C> = { [K in keyof C]: C[K] extends (req: infer R, call: CallInit) => infer O ? (req: R, call?: Partial<CallInit>) => O : never };

export interface ServeOptions {
  usage?: UsageStore;
  prices?: PriceTable;
  imageModels?: ModelResolver;
  principal?: Principal;
  now?: () => number;
}

/** The service's client; each call takes the parts of its CallInit that differ from callInit(). */
export function serve<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>, opts: ServeOptions = {}): Loose<CoreClient<S>> {
  const p = opts.principal ?? TEST_PRINCIPAL;
  const auth = { cached: (s: string) => (s === "bad" ? null : p), verify: async () => undefined, invalidate: () => undefined } as unknown as Authenticator;
  const table = meters(opts.imageModels);
  const keys = { reserveCredits: async () => true, adjustSpent: async () => undefined } as unknown as KeyStore;
  const tenancy = { limiter: memoryLimiter(), budgets: budgets(keys), prices: opts.prices ?? EMPTY_PRICES, meters: table, usage: opts.usage, now: opts.now };
  const client = localClient(service, impl, createPipeline({ auth, admission: admission(tenancy), settlement: settlement(tenancy), now: opts.now })) as Record<
    string,
    (req: unknown, call: CallInit) => unknown
  >;
  const loose: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(client)) loose[name] = (req: unknown, over?: Partial<CallInit>) => f(req, callInit(over));
  return loose as Loose<CoreClient<S>>;
}
