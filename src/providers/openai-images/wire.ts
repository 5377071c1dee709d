// The OpenAI Images API as the gateway reads it from an upstream (zod). Loose:
// upstreams add fields, and compatible servers leave some out.
import { z } from "zod";

const tokensDetails = z.object({ text_tokens: z.number().int().default(0), image_tokens: z.number().int().default(0) }).loose();

const usage = z
  .object({
    input_tokens: z.number().int().default(0),
    output_tokens: z.number().int().default(0),
    total_tokens: z.number().int().optional(),
    input_tokens_details: tokensDetails.optional(),
    output_tokens_details: tokensDetails.optional(),
  })
  .loose();

export const imagesResponse = z
  .object({
    created: z.number().optional(),
    data: z
      .array(
        z
          .object({
            b64_json: z.string().nullish(),
            url: z.string().nullish(),
            revised_prompt: z.string().nullish(),
          })
          .loose(),
      )
      .default([]),
    usage: usage.nullish(),
  })
  .loose();

export type ImagesResponse = z.infer<typeof imagesResponse>;

/**
 * One event of a streamed generation or edit (`image_generation.*`,
 * `image_edit.*`): a partial image or a finished one, by the end of `type`.
 */
export const imageStreamEvent = z
  .object({
    type: z.string(),
    b64_json: z.string().nullish(),
    // Read as absent (0) unless the neutral model's 32-bit index can hold it.
    partial_image_index: z
      .number()
      .int()
      .gte(0)
      .lte(2 ** 31 - 1)
      .nullish()
      .catch(undefined),
    usage: usage.nullish(),
  })
  .loose();

export type ImageStreamEvent = z.infer<typeof imageStreamEvent>;

export const errorBody = z
  .object({
    error: z
      .object({
        message: z.string().nullish(),
        type: z.string().nullish(),
        param: z.string().nullish(),
        code: z.union([z.string(), z.number()]).nullish(),
      })
      .loose(),
  })
  .loose();

export type ErrorBody = z.infer<typeof errorBody>;
