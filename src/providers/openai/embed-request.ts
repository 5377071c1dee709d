// Neutral EmbedRequest -> OpenAI's embeddings request. Pure.
//
// One text is sent as a string and several as an array (what every
// OpenAI-compatible server takes); token arrays likewise as number[] or
// number[][]. A request mixing texts and token arrays cannot be said in this
// wire and is refused. api.openai.com is asked for base64 vectors (a quarter
// of the bytes of decimal floats); other servers, whose base64 support varies,
// for floats (embed-response.ts reads either). Task type and titles (Gemini's) have no OpenAI field and are
// dropped; the "openai" vendor extras are merged in, fields the gateway sets
// winning.
import type { EmbedRequest } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { unsupported } from "../shared/http-errors.js";
import type { EmbeddingsRequest } from "./embed-wire.js";

const VENDOR = "openai";

function inputOf(req: EmbedRequest): EmbeddingsRequest["input"] {
  const kinds = new Set(req.inputs.map((i) => i.content.case));
  if (kinds.size > 1) throw unsupported(VENDOR, "inputs", "mixing texts and token arrays in one request");
  const texts = req.inputs.map((i) => (i.content.case === "text" ? i.content.value : ""));
  if (kinds.has("text")) return texts.length === 1 ? texts[0]! : texts;
  const ids = req.inputs.map((i) => (i.content.case === "tokens" ? i.content.value.ids : []));
  return ids.length === 1 ? ids[0]! : ids;
}

export function toVendorEmbedRequest(req: EmbedRequest, upstreamModel: string, opts: { official: boolean }): EmbeddingsRequest {
  const body: EmbeddingsRequest = { ...req.vendorExtras[VENDOR], model: upstreamModel, input: inputOf(req) };
  if (opts.official) body.encoding_format = "base64";
  if (req.dimensions !== undefined) body.dimensions = req.dimensions;
  if (req.user) body.user = req.user;
  return body;
}
