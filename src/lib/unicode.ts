// Unpaired UTF-16 surrogates: half of a pair, as a string cut inside an emoji
// leaves it. JSON can carry one in a \u escape; UTF-8, and so every protobuf
// string, cannot, so the neutral model must never hold one.

/** How JSON text can carry a surrogate at all: a \u escape in D800-DFFF (raw UTF-8 cannot encode one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNPAIRED_ALL = new RegExp(UNPAIRED.source, "g");

/** Whether JSON text may hold an unpaired surrogate (a cheap test of the text before any walk of what it parsed to; includes() first, several times faster than the regex alone). */
export const mayHoldSurrogate = (json: string): boolean => json.includes("\\u") && SURROGATE_ESCAPE.test(json);

/** Whether every surrogate in `s` is half of a pair. */
export const isWellFormed = (s: string): boolean => !UNPAIRED.test(s);

/** `s` with each unpaired surrogate replaced by U+FFFD, as a UTF-8 encoder writes it. */
export const toWellFormed = (s: string): string => (UNPAIRED.test(s) ? s.replace(UNPAIRED_ALL, "\uFFFD") : s);

/** JSON.parse, with every unpaired surrogate in keys and strings replaced by U+FFFD: for text the gateway cannot refuse (an upstream's). */
export function parseWellFormed(text: string): unknown {
  if (!mayHoldSurrogate(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: Record<string, unknown>, key: string, value: unknown) {
    const k = toWellFormed(key);
    if (k !== key) {
      this[k] = value;
      return undefined;
    }
    return typeof value === "string" ? toWellFormed(value) : value;
  });
}
