// The vendor_extras keys of OpenAI's wires, shared by the facades that fill
// them and the providers that read them.

/** Chat Completions-shaped settings the neutral model does not carry (the key is the vendor's). */
export const OPENAI_EXTRAS = "openai";

/**
 * Responses API fields a Responses client sent that its translation did not
 * read, as sent: an OpenAI channel with `api: "responses"` lays them over its
 * request; every other upstream leaves them out, or refuses the ones it
 * cannot (a stored prompt).
 */
export const RESPONSES_EXTRAS = "openai-responses";
