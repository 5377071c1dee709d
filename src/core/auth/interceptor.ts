// The one place where core calls are authenticated. Facades forward the
// client's key as "authorization: Bearer"; gRPC and Connect callers send it the
// same way. The principal goes into the call's context values.
import type { Interceptor } from "@connectrpc/connect";
import { REQUEST_ID_HEADER, principalKey, requestIdKey, type Principal } from "../context.js";
import { unauthenticated } from "../errors.js";
import type { Authenticator } from "./authenticator.js";

export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export function authInterceptor(auth: Authenticator): Interceptor {
  /** Puts the principal and the request id into the call's context values; a refusal is returned, not thrown. */
  const admit = (req: Parameters<Parameters<Interceptor>[0]>[0], principal: Principal | undefined, token: string | undefined) => {
    if (!principal) return unauthenticated(token ? "invalid API key" : "missing API key");
    req.contextValues.set(principalKey, principal);
    const rid = req.header.get(REQUEST_ID_HEADER);
    if (rid) req.contextValues.set(requestIdKey, rid);
    return undefined;
  };
  return (next) => (req) => {
    const token = bearerToken(req.header.get("authorization"));
    // A key the cache knows is checked without an async step.
    const known = token ? auth.cached?.(token) : null;
    if (known !== undefined) {
      const refused = admit(req, known ?? undefined, token);
      return refused ? Promise.reject(refused) : next(req);
    }
    return auth.verify(token!).then((principal) => {
      const refused = admit(req, principal, token);
      if (refused) throw refused;
      return next(req);
    });
  };
}
