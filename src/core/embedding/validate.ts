// What an embedding request must mean before it is routed: a model, 1 to
// MAX_INPUTS inputs that are each a non-empty text or token array, and a
// positive vector size when one is asked for. Fields are the core's names
// (inputs[3], dimensions); each facade says them in its own words.
import type { EmbedRequest } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { invalidArgument } from "../errors.js";

/** Most inputs in one request (OpenAI's limit). */
export const MAX_INPUTS = 2048;
/** Largest vector size anyone may ask for (the largest models make 3,072 or 4,096). */
export const MAX_DIMENSIONS = 16_384;

export function checkEmbedRequest(req: EmbedRequest): void {
  if (!req.model) throw invalidArgument("model: a model is required", "model", "missing_required_parameter");
  if (req.inputs.length === 0) throw invalidArgument("inputs: at least one input is required", "inputs", "missing_required_parameter");
  if (req.inputs.length > MAX_INPUTS) throw invalidArgument(`inputs: at most ${MAX_INPUTS} inputs are allowed in one request, got ${req.inputs.length}`, "inputs", "too_many_inputs");
  req.inputs.forEach((input, i) => {
    const c = input.content;
    if (c.case === undefined) throw invalidArgument(`inputs[${i}]: an input needs a text or tokens`, `inputs[${i}]`, "empty_input");
    if (c.case === "text" && c.value === "") throw invalidArgument(`inputs[${i}]: an input must not be empty`, `inputs[${i}]`, "empty_input");
    if (c.case === "tokens" && c.value.ids.length === 0) throw invalidArgument(`inputs[${i}]: a token array must not be empty`, `inputs[${i}]`, "empty_input");
    if (c.case === "tokens" && c.value.ids.some((t) => t < 0)) throw invalidArgument(`inputs[${i}]: token ids must not be negative`, `inputs[${i}]`, "invalid_value");
  });
  const d = req.dimensions;
  if (d !== undefined && (d <= 0 || d > MAX_DIMENSIONS)) {
    throw invalidArgument(`dimensions: must be between 1 and ${MAX_DIMENSIONS}, got ${d}`, "dimensions", d <= 0 ? "integer_below_min_value" : "integer_above_max_value");
  }
}
