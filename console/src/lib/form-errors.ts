// Errors shown beside the form field they are about. Pure (no DOM, no tRPC
// import), so test/console tests it in Node.

export type FieldErrors<F extends string = string> = Partial<Record<F, string>>;

interface Issue {
  message?: string;
  path?: (string | number)[];
}

/**
 * The field errors in a server's answer to a form: tRPC's input check sends
 * zod issues (a JSON list; the first path segment names the field), and the
 * core answers "<field> must be ..." for values it refuses. Null when the
 * error is about none of `fields` (show it above the buttons instead).
 */
export function serverFieldErrors<F extends string>(err: unknown, fields: readonly F[]): FieldErrors<F> | null {
  const msg = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  const out: FieldErrors<F> = {};
  const known = (f: unknown): f is F => typeof f === "string" && (fields as readonly string[]).includes(f);
  if (msg.trimStart().startsWith("[")) {
    try {
      for (const i of JSON.parse(msg) as Issue[]) {
        const f = i.path?.[0];
        if (known(f) && !out[f]) out[f] = i.message ?? "invalid value";
      }
    } catch {
      // Not a JSON list: try the plain forms below.
    }
  } else {
    const f = /^([A-Za-z_]\w*)\b/.exec(msg)?.[1];
    const rest = known(f) ? msg.slice(f.length).replace(/^[:\s]+/, "") : "";
    if (known(f)) out[f] = rest ? rest[0]!.toUpperCase() + rest.slice(1) : msg;
  }
  return Object.keys(out).length ? out : null;
}

/** The text as a whole number within [min, max], or the message to show beside its field. */
export function wholeNumber(text: string, min: number, max: number): { value: number } | { error: string } {
  const s = text.trim();
  const range = `from ${min.toLocaleString()} to ${max.toLocaleString()}`;
  if (!/^-?\d+$/.test(s)) return { error: s ? `"${s}" is not a whole number ${range}` : `Enter a whole number ${range}` };
  const n = Number(s);
  return n < min || n > max ? { error: `Must be ${range}` } : { value: n };
}
