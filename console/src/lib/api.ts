// The console's only way to the server: a tRPC client typed with AppRouter.
// Queries and mutations go batched over HTTP; subscriptions over SSE through
// FetchEventSource, so the key travels as a header on every call.
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../../src/trpc/router";
import { FetchEventSource } from "./fetch-event-source";

export type Api = ReturnType<typeof createApi>;
export type Outputs = inferRouterOutputs<AppRouter>;
export type Inputs = inferRouterInputs<AppRouter>;

export type Key = Outputs["admin"]["keys"]["list"][number];
export type Channel = Outputs["admin"]["channels"]["list"][number];
export type Account = Outputs["admin"]["accounts"]["list"][number];
export type TaskDetail = Outputs["imageBot"]["get"];
export type VideoDetail = Outputs["videos"]["get"];

export function createApi(key: string, base = `${location.origin}/trpc`) {
  const headers = { authorization: `Bearer ${key}` };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: base, EventSource: FetchEventSource, eventSourceOptions: { headers } }),
        false: httpBatchLink({ url: base, headers }),
      }),
    ],
  });
}

/** The tRPC error code of a failed call ("UNAUTHORIZED", ...), if it is one. */
export function errorCode(err: unknown): string | undefined {
  return err instanceof TRPCClientError ? ((err as TRPCClientError<AppRouter>).data?.code ?? undefined) : undefined;
}

/** A message for people: zod issue lists become their first message. */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const msg = err.message;
  if (msg.startsWith("[")) {
    try {
      const issues = JSON.parse(msg) as { message?: string; path?: (string | number)[] }[];
      const first = issues[0];
      if (first?.message) return first.path?.length ? `${first.path.join(".")}: ${first.message}` : first.message;
    } catch {
      // Not JSON: use it as is.
    }
  }
  return msg;
}
