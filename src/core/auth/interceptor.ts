// The one place where core calls are authenticated. Facades forward the
// client's key as "authorization: Bearer"; gRPC and Connect callers send it the
// same way. The principal goes into the call's context values.
import type { Interceptor } from "@connectrpc/connect";
import { FORMAT_HEADER, REQUEST_ID_HEADER, formatKey, principalKey, requestIdKey } from "../context.js";
import { unauthenticated } from "../errors.js";
import type { Authenticator } from "./authenticator.js";

export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export function authInterceptor(auth: Authenticator): Interceptor {
  return (next) => async (req) => {
    const token = bearerToken(req.header.get("authorization"));
    const principal = token ? await auth.verify(token) : undefined;
    if (!principal) throw unauthenticated(token ? "invalid API key" : "missing API key");
    req.contextValues.set(principalKey, principal);
    const format = req.header.get(FORMAT_HEADER);
    if (format) req.contextValues.set(formatKey, format);
    const rid = req.header.get(REQUEST_ID_HEADER);
    if (rid) req.contextValues.set(requestIdKey, rid);
    return next(req);
  };
}
