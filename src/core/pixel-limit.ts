// One pixel limit for every image a client sends, on every surface: image-bot
// inputs and masks, /v1/images edits and variations, video references. It is
// checked on the header (no decode) before anything else, and given to sharp
// as limitInputPixels wherever a client's image is decoded, so libvips
// refuses a larger one too. A PNG of 8000x8000 is 200 KB on the wire and
// 256 MB decoded: the byte limits alone do not bound the work.

/** 40 megapixels: a 6000x6000 (36 MP) photo passes, 8192x8192 does not; decoded as RGBA, at most 160 MB. */
export const MAX_INPUT_PIXELS = 40_000_000;

/** True when an image of width x height pixels is within the limit. */
export function withinPixelLimit(width: number, height: number): boolean {
  return width * height <= MAX_INPUT_PIXELS;
}

/** "40 megapixels", for error messages. */
export const PIXEL_LIMIT_TEXT = `${MAX_INPUT_PIXELS / 1_000_000} megapixels`;

/** sharp's input options for decoding a client's image. */
export const DECODE_LIMIT = { limitInputPixels: MAX_INPUT_PIXELS } as const;

/** sharp's input options for reading a header only (metadata()): the caller's own check then names the size. */
export const HEADER_ONLY = { limitInputPixels: false } as const;
