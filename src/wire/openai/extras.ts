// The vendor_extras key of OpenAI's Responses wire, shared by the facade that
// fills it and the providers that read it.

/**
 * Responses API fields a Responses client sent that its translation did not
 * read, as sent: an OpenAI channel with `api: "responses"` lays them over its
 * request; every other upstream leaves them out, or refuses the ones it
 * cannot (a stored prompt).
 */
export const RESPONSES_EXTRAS = "openai-responses";
