// The tRPC instance shared by every sub-router.
import { initTRPC } from "@trpc/server";
import type { TrpcContext } from "./context.js";
import { toTrpcError } from "./errors.js";

export const t = initTRPC.context<TrpcContext>().create({
  isDev: false,
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

