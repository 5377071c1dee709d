// The tRPC instance shared by every sub-router.
import { initTRPC } from "@trpc/server";
import type { TrpcContext } from "./context.js";
import { toTrpcError } from "./errors.js";

export const t = initTRPC.context<TrpcContext>().create({
  isDev: false,
  // Subscriptions (SSE) send a ping when idle, so proxies keep them open; a client that hears nothing for twice as long reconnects.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 30_000 } },
  errorFormatter({ shape, ctx }) {
    if (ctx?.dev) return shape;
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, data };
  },
});

/** Calls the core and turns its errors into tRPC errors. */
export async function core<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toTrpcError(err);
  }
}
