// A client's input image decoded for the local engine. Its header was checked
// at the edge (metadata alone); a file whose pixels do not decode (a bad CRC,
// truncated data) is the client's error, answered in the image edge's own
// words, and is found here, where the engine decodes it anyway.
import { Code } from "@connectrpc/connect";
import { coreError } from "../../../core/errors.js";
import type { ImageInput } from "../../../core/ports.js";
import { decodeRgba, type RawImage } from "./render.js";

export async function decodeInput(img: ImageInput, param: "image" | "mask", width: number, height: number): Promise<RawImage> {
  try {
    return await decodeRgba(img.data, width, height);
  } catch (err) {
    throw coreError(Code.InvalidArgument, `Invalid file '${img.filename}': the image data is corrupt and could not be decoded.`, {
      reason: "invalid_image_format",
      field: param,
      metadata: { code: "invalid_image_format" },
      cause: err,
    });
  }
}
