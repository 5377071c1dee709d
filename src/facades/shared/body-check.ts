// What the gateway's own checks of a JSON body found (nesting depth, unpaired
// surrogates, content encoding: server/json-body.ts, request-encoding.ts),
// for the facades' invalid-body messages. fastify's own parse error is a
// FastifyError whose text says nothing a client can act on.

/** The finding of the gateway's body checks behind an invalid-body error; undefined for any other error. */
export function bodyCheckFinding(err: unknown): string | undefined {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== "FST_ERR_CTP_INVALID_JSON_BODY" || err.name === "FastifyError") return undefined;
  return err.message || undefined;
}

/** `message`, followed by the body checks' finding (after `sep`) when there is one. */
export function withBodyCheckFinding(message: string, err: unknown, sep = " "): string {
  const finding = bodyCheckFinding(err);
  return finding ? `${message}${sep}${finding}` : message;
}
