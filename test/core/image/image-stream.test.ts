// ImageService's streamed RPCs through the call pipeline with
// scripted providers: partial images then the batch, a provider without a
// stream of its own, fallback before the first event, the stream's failures
// and an early stop recorded in usage, and the stream rules.
import t, { type Test } from "tap";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import sharp from "sharp";
import { ImageService, ImageUsageSchema, ResponseFormat } from "../../../gen/omnigate/image/v1/image_pb.js";
import { DEFAULT_IMAGE_ALIASES } from "../../../src/config.js";
import { coreError, errorDetail } from "../../../src/core/errors.js";
import { imageService } from "../../../src/core/image/image-service.js";
import type { ImageRoute } from "../../../src/core/image/image-routing.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import { serve } from "../call/harness.js";
import type { ImageJob, ImageProvider, ImageStreamEvent } from "../../../src/core/ports.js";
import { fsBlobStore } from "../../../src/storage/blob/fs-blob-store.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";

const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#123456" } })
  .png()
  .toBuffer();
const usage = create(ImageUsageSchema, { inputTokens: 1n, outputTokens: 2n, totalTokens: 3n });

/** The service behind the pipeline, its usage settled into storage. */
function setup(t: Test, routes: ImageRoute[]) {
  const dir = t.testdir();
  const storage = openSqliteStorage(dir);
  t.teardown(() => storage.close());
  const now = () => 1_700_000_000_000;
  const blobs = fsBlobStore({ dir: path.join(dir, "files"), files: storage.files, now });
  const models = modelResolver(DEFAULT_IMAGE_ALIASES);
  const client = serve(ImageService, imageService({ models, routing: { resolve: () => routes }, blobs, urlSecret: "k", urlTtlMs: 1000, now }), { usage: storage.usage, imageModels: models, now });
  return { client, storage };
}

const route = (channel: string, provider: ImageProvider): ImageRoute => ({ channel, provider, upstreamModel: "m" });
const streaming = (events: (job: ImageJob) => AsyncGenerator<ImageStreamEvent>): ImageProvider => ({ kind: "test", run: () => Promise.reject(new Error("not used")), stream: events });

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const m of it) out.push(m);
  return out;
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => ConnectError.from(e),
  );

t.test("partial images with the echoed fields, then the batch inline", async (t) => {
  let seen: ImageJob | undefined;
  const p = streaming(async function* (job) {
    seen = job;
    yield { kind: "partial", imageIndex: 0, partialIndex: 0, data: new Uint8Array([1, 2, 3]) };
    yield { kind: "result", result: { images: [{ data: png }], usage } };
  });
  const { client, storage } = setup(t, [route("up", p)]);
  const out = await drain(client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1", size: "1024x1024", quality: "low", outputFormat: "webp" }, partialImages: 1 }));
  t.equal(seen?.partialImages, 1, "the job carries partial_images");
  t.equal(out.length, 2);
  const partial = out[0]!.event;
  t.equal(partial.case, "partialImage");
  t.match(partial.value, {
    imageIndex: 0,
    partialImageIndex: 0,
    created: 1_700_000_000n,
    outputFormat: "webp",
    size: "1024x1024",
    quality: "low",
    background: "opaque",
    file: { mimeType: "image/webp", sizeBytes: 3n },
  });
  const batch = out[1]!.event;
  t.equal(batch.case, "batch");
  if (batch.case !== "batch") return;
  t.ok(Buffer.from(batch.value.images[0]!.file!.data).equals(png), "inline");
  t.equal(batch.value.images[0]!.file!.url, "");
  t.equal(batch.value.usage?.totalTokens, 3n);
  t.equal(batch.value.channel, "up");
  t.match((await storage.usage.query({})).rows, [{ status: "ok", images: 1, channel: "up" }]);
});

t.test("a provider without a stream of its own: its result, no partial images; edits stream too", async (t) => {
  const plain: ImageProvider = { kind: "plain", run: async (job) => ({ images: Array.from({ length: job.n }, () => ({ data: png })) }) };
  const { client } = setup(t, [route("plain", plain)]);
  const out = await drain(client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1-mini", n: 2 }, partialImages: 3 }));
  t.same(
    out.map((m) => m.event.case),
    ["batch"],
  );
  const image = await sharp({ create: { width: 8, height: 8, channels: 4, background: "#00000000" } })
    .png()
    .toBuffer();
  const edit = await drain(client.streamEditImages({ prompt: "p", images: [{ filename: "a.png", mimeType: "image/png", source: { case: "data", value: image } }], partialImages: 1 }));
  t.same(
    edit.map((m) => m.event.case),
    ["batch"],
  );
  t.equal(edit[0]!.event.case === "batch" && edit[0]!.event.value.model, "IMG_MODEL_C", "a streamed edit without a model is IMG_MODEL_C's");
});

t.test("a route unavailable before its first event falls over; other errors do not", async (t) => {
  const down = streaming(async function* () {
    yield* [];
    throw coreError(Code.Unavailable, "down", { reason: "upstream_error" });
  });
  const refused = streaming(async function* () {
    yield* [];
    throw coreError(Code.InvalidArgument, "no", { reason: "invalid_value", field: "size" });
  });
  const ok = streaming(async function* () {
    yield { kind: "result", result: { images: [{ data: png }] } };
  });
  const a = setup(t, [route("a", down), route("b", ok)]);
  const out = await drain(a.client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" } }));
  t.equal(out[0]!.event.case === "batch" && out[0]!.event.value.channel, "b");
  const b = setup(t, [route("a", refused), route("b", ok)]);
  const err = await failure(drain(b.client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" } })));
  t.equal(err.code, Code.InvalidArgument);
  t.match((await b.storage.usage.query({})).rows, [{ channel: "a", status: `error:${Code.InvalidArgument}` }]);
  const c = setup(t, [route("a", down)]);
  t.equal((await failure(drain(c.client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" } })))).code, Code.Unavailable, "the last route's error");
});

t.test("a stream that ends without a result, or breaks after a preview, fails and is recorded", async (t) => {
  const empty = streaming(async function* () {
    yield { kind: "partial", imageIndex: 0, partialIndex: 0, data: new Uint8Array([1]) };
  });
  const { client, storage } = setup(t, [route("e", empty)]);
  const err = await failure(drain(client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" }, partialImages: 1 })));
  t.equal(err.code, Code.Unavailable);
  t.equal(errorDetail(err)?.reason, "upstream_bad_response");
  t.match((await storage.usage.query({})).rows, [{ channel: "e", status: `error:${Code.Unavailable}`, images: 0 }]);
  const junk = streaming(async function* () {
    yield { kind: "result", result: { images: [{ data: new Uint8Array([9, 9]) }] } };
  });
  const j = setup(t, [route("j", junk)]);
  t.equal(errorDetail(await failure(drain(j.client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" } }))))?.reason, "upstream_bad_response", "unreadable bytes");
  t.match((await j.storage.usage.query({})).rows, [{ status: `error:${Code.Unavailable}` }], "recorded once");
});

t.test("a caller that stops reading: the provider's stream is closed and the call recorded as canceled", async (t) => {
  let closed = false;
  const slow = streaming(async function* () {
    try {
      yield { kind: "partial", imageIndex: 0, partialIndex: 0, data: new Uint8Array([1]) };
      yield { kind: "partial", imageIndex: 0, partialIndex: 1, data: new Uint8Array([2]) };
      yield { kind: "result", result: { images: [{ data: png }] } };
    } finally {
      closed = true;
    }
  });
  const { client, storage } = setup(t, [route("s", slow)]);
  const it = client.streamGenerateImages({ prompt: "p", options: { model: "gpt-image-1" }, partialImages: 2 })[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "partialImage");
  await it.return!();
  t.ok(closed, "the provider's generator ran its finally");
  t.match((await storage.usage.query({})).rows, [{ status: "canceled" }], "a reader that stops early: canceled");
});

t.test("stream rules: models that stream, 0 to 3 partial images, no url", async (t) => {
  const { client } = setup(t, [
    route(
      "x",
      streaming(async function* () {}),
    ),
  ]);
  const cases: Array<[Parameters<typeof client.streamGenerateImages>[0], string, string]> = [
    [{ prompt: "p", options: { model: "dall-e-3" } }, "stream", "unsupported_value"],
    [{ prompt: "p" }, "stream", "unsupported_value"],
    [{ prompt: "p", options: { model: "gpt-image-1" }, partialImages: 4 }, "partial_images", "integer_above_max_value"],
    [{ prompt: "p", options: { model: "gpt-image-1" }, partialImages: -1 }, "partial_images", "integer_below_min_value"],
    [{ prompt: "p", options: { model: "gpt-image-1", responseFormat: ResponseFormat.URL } }, "response_format", "invalid_value"],
  ];
  for (const [req, field, reason] of cases) {
    const err = await failure(drain(client.streamGenerateImages(req)));
    t.equal(err.code, Code.InvalidArgument);
    t.match(errorDetail(err), { field, reason }, `${field} ${reason}`);
  }
});
