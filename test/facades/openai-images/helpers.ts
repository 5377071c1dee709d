// Shared helpers of the OpenAI Images facade tests: a gateway with the openai
// SDK pointed at it, and small synthetic PNGs.
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

export { ADMIN_KEY };

export interface ImagesEnv {
  server: TestServer;
  client: OpenAI;
}

export async function startImages(opts: Parameters<typeof startServer>[0] = {}): Promise<ImagesEnv> {
  const server = await startServer(opts);
  const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0 });
  return { server, client };
}

/** A w x h RGBA PNG: a diagonal gradient, with a fully transparent square in the middle when `hole`. */
export async function makePng(w: number, h: number, opts: { hole?: boolean; alpha?: boolean; seed?: number } = {}): Promise<Buffer> {
  const channels = opts.alpha === false ? 3 : 4;
  const data = Buffer.alloc(w * h * channels);
  const s = opts.seed ?? 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * channels;
      data[i] = (x * 255) / w + s;
      data[i + 1] = (y * 255) / h;
      data[i + 2] = ((x + y) * 127) / (w + h) + s * 3;
      if (channels === 4) data[i + 3] = opts.hole && x >= w / 4 && x < (3 * w) / 4 && y >= h / 4 && y < (3 * h) / 4 ? 0 : 255;
    }
  return sharp(data, { raw: { width: w, height: h, channels } })
    .png()
    .toBuffer();
}

/** A mask: opaque everywhere except a transparent rectangle [x0,x1) x [y0,y1). */
export async function makeMask(w: number, h: number, rect: { x0: number; y0: number; x1: number; y1: number }): Promise<Buffer> {
  const data = Buffer.alloc(w * h * 4, 255);
  for (let y = rect.y0; y < rect.y1; y++) for (let x = rect.x0; x < rect.x1; x++) data[(y * w + x) * 4 + 3] = 0;
  return sharp(data, { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer();
}

export const file = (bytes: Buffer, name: string, type = "image/png") => toFile(bytes, name, { type });

export async function rawRgba(bytes: Buffer | Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export async function fetchBytes(url: string): Promise<{ status: number; type: string | null; bytes: Buffer; json?: unknown }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get("content-type");
  return { status: res.status, type, bytes, ...(type?.includes("json") ? { json: JSON.parse(bytes.toString("utf8")) } : {}) };
}
