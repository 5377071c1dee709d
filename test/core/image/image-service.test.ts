// ImageService over an in-memory Connect transport with scripted providers:
// routing fallback, result storage, usage and echo rules, URL bases.
import t, { type Test } from "tap";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import sharp from "sharp";
import { ImageService, ResponseFormat } from "../../../gen/omnigate/image/v1/image_pb.js";
import { ImageUsageSchema } from "../../../gen/omnigate/image/v1/image_pb.js";
import { DEFAULT_IMAGE_ALIASES } from "../../../src/config.js";
import { coreError, errorDetail } from "../../../src/core/errors.js";
import { imageService } from "../../../src/core/image/image-service.js";
import { serve } from "../call/harness.js";
import type { ImageRoute } from "../../../src/core/image/image-routing.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import type { ImageJob, ImageProvider } from "../../../src/core/ports.js";
import { fsBlobStore } from "../../../src/storage/blob/fs-blob-store.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";

const assertThrew = (): never => {
  throw new Error("expected the call to fail");
};
const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#123456" } })
  .png()
  .toBuffer();

function setup(t: Test, routes: ImageRoute[], publicUrl?: string) {
  const dir = t.testdir();
  const storage = openSqliteStorage(dir);
  t.teardown(() => storage.close());
  const now = () => 1_700_000_000_000;
  const blobs = fsBlobStore({ dir: path.join(dir, "files"), files: storage.files, now });
  const models = modelResolver(DEFAULT_IMAGE_ALIASES);
  const client = serve(ImageService, imageService({ models, routing: { resolve: () => routes }, blobs, urlSecret: "k", publicUrl, urlTtlMs: 1000, now }), {
    usage: storage.usage,
    imageModels: models,
    now,
  });
  return { client, storage };
}

const provider = (run: (job: ImageJob) => Promise<{ images: { data: Uint8Array; revisedPrompt?: string }[]; usage?: ReturnType<typeof create<typeof ImageUsageSchema>> }>): ImageProvider => ({
  kind: "test",
  run,
});
const ok = provider(async (job) => ({ images: Array.from({ length: job.n }, () => ({ data: png })), usage: create(ImageUsageSchema, { inputTokens: 1n, outputTokens: 2n, totalTokens: 3n }) }));
const down = provider(async () => Promise.reject(coreError(Code.Unavailable, "down", { reason: "upstream_error" })));
const refused = provider(async () => Promise.reject(coreError(Code.InvalidArgument, "no", { reason: "invalid_value", field: "size" })));

t.test("an unavailable route falls over; results are measured, stored and signed", async (t) => {
  let seen: ImageJob | undefined;
  const spy = provider(async (job) => {
    seen = job;
    return ok.run(job, {} as never);
  });
  const { client, storage } = setup(t, [
    { channel: "a", provider: down, upstreamModel: "x" },
    { channel: "b", provider: spy, upstreamModel: "y" },
  ]);
  const res = await client.generateImages({ prompt: "p", options: { model: "dall-e-2", size: "256x256", n: 2 } }, { urlBase: "http://gw:1" });
  const b = res.batch!;
  t.equal(b.channel, "b");
  t.equal(b.model, "IMG_MODEL_A");
  t.equal(b.created, 1_700_000_000n);
  t.equal(b.images.length, 2);
  t.match(b.images[0]!.file!.url, /^http:\/\/gw:1\/files\/file_[0-9a-f]{32}\?exp=1700000001&sig=/);
  t.match(b.images[0]!.file, { mimeType: "image/png", width: 20, height: 10, sizeBytes: BigInt(png.length) });
  t.equal(b.usage, undefined, "usage only for IMG_MODEL_C");
  t.equal(b.size, "20x10");
  t.equal(b.quality, "", "IMG_MODEL_A echoes no quality");
  t.match(seen, { operation: "generate", profile: "IMG_MODEL_A", n: 2, width: 256, height: 256, quality: "standard", outputFormat: "png" });
  const rows = await storage.usage.query({});
  t.equal(rows.rows.length, 1);
  t.match(rows.rows[0], { model: "dall-e-2", channel: "b", images: 2, status: "ok" });
});

t.test("other errors do not fall over; usage records the failure", async (t) => {
  const { client, storage } = setup(t, [
    { channel: "a", provider: refused, upstreamModel: "x" },
    { channel: "b", provider: ok, upstreamModel: "y" },
  ]);
  const err = await client.generateImages({ prompt: "p", options: { size: "256x256" } }).then(
    () => assertThrew(),
    (e) => ConnectError.from(e),
  );
  t.equal(err.code, Code.InvalidArgument);
  t.equal(errorDetail(err)?.field, "size");
  t.match((await storage.usage.query({})).rows[0], { channel: "a", status: `error:${Code.InvalidArgument}` });
});

t.test("IMG_MODEL_C keeps usage; b64 inlines; a bad URL base is ignored; publicUrl wins", async (t) => {
  const { client } = setup(t, [{ channel: "local", provider: ok, upstreamModel: "m" }]);
  const c = await client.generateImages({ prompt: "p", options: { model: "gpt-image-1", responseFormat: ResponseFormat.B64_JSON } });
  t.equal(c.batch!.usage?.totalTokens, 3n);
  t.ok(Buffer.from(c.batch!.images[0]!.file!.data).equals(png));
  t.equal(c.batch!.images[0]!.file!.url, "");
  t.match(c.batch, { outputFormat: "png", background: "opaque", quality: "high" });
  const rel = await client.generateImages({ prompt: "p", options: { size: "256x256" } }, { urlBase: "" });
  t.match(rel.batch!.images[0]!.file!.url, /^\/files\/file_/, "relative without a trustworthy base");
  const pub = setup(t, [{ channel: "local", provider: ok, upstreamModel: "m" }], "https://pub.example/");
  const p = await pub.client.generateImages({ prompt: "p", options: { size: "256x256" } }, { urlBase: "http://gw:1" });
  t.match(p.batch!.images[0]!.file!.url, /^https:\/\/pub\.example\/files\//);
});

t.test("unreadable provider output is the provider's fault", async (t) => {
  const junk = provider(async () => ({ images: [{ data: new Uint8Array([1, 2, 3]) }] }));
  const { client } = setup(t, [{ channel: "j", provider: junk, upstreamModel: "m" }]);
  const err = await client.generateImages({ prompt: "p", options: { size: "256x256" } }).then(
    () => assertThrew(),
    (e) => ConnectError.from(e),
  );
  t.equal(err.code, Code.Unavailable);
  t.equal(errorDetail(err)?.reason, "upstream_bad_response");
});

t.test("variations need an image; uri inputs are refused", async (t) => {
  const { client } = setup(t, [{ channel: "local", provider: ok, upstreamModel: "m" }]);
  const none = await client.createImageVariations({}).then(
    () => assertThrew(),
    (e) => ConnectError.from(e),
  );
  t.match(errorDetail(none), { field: "image", reason: "missing_required_parameter" });
  const uri = await client.createImageVariations({ image: { source: { case: "uri", value: "http://x/y.png" } } }).then(
    () => assertThrew(),
    (e) => ConnectError.from(e),
  );
  t.match(errorDetail(uri), { field: "image", reason: "invalid_value" });
});
