// Safety simulation: a blocklist word in the last user text blocks the prompt
// (no candidates, prompt_feedback SAFETY with a HIGH dangerous-content rating);
// every answered candidate carries NEGLIGIBLE ratings.
import { create } from "../../../core/proto/create.js";
import { BlockReason, HarmCategory, HarmProbability, PromptFeedbackSchema, SafetyRatingSchema, type PromptFeedback, type SafetyRating } from "../../../../gen/omnigate/chat/v1/chat_pb.js";

const RATED = [HarmCategory.HARASSMENT, HarmCategory.HATE_SPEECH, HarmCategory.SEXUALLY_EXPLICIT, HarmCategory.DANGEROUS_CONTENT];

/** The blocklist word `text` contains (case-insensitive, whole word), if any. */
export function blockedWord(text: string, blocklist: readonly string[]): string | undefined {
  const lower = text.toLowerCase();
  return blocklist.find((w) => {
    const word = w.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return word && new RegExp(`(^|[^\\p{L}\\p{N}_-])${word}($|[^\\p{L}\\p{N}_-])`, "u").test(lower);
  });
}

/** Ratings of an answered candidate: all NEGLIGIBLE. */
export function negligibleRatings(): SafetyRating[] {
  return RATED.map((category) => create(SafetyRatingSchema, { category, probability: HarmProbability.NEGLIGIBLE }));
}

/** Feedback for a blocked prompt. */
export function blockedFeedback(): PromptFeedback {
  return create(PromptFeedbackSchema, {
    blockReason: BlockReason.SAFETY,
    blockMessage: "The prompt was blocked by the local engine's blocklist.",
    safetyRatings: RATED.map((category) =>
      category === HarmCategory.DANGEROUS_CONTENT
        ? create(SafetyRatingSchema, { category, probability: HarmProbability.HIGH, blocked: true })
        : create(SafetyRatingSchema, { category, probability: HarmProbability.NEGLIGIBLE }),
    ),
  });
}
