// Reference images: bytes and data URLs are checked to be images; URLs are
// checked against SSRF and fetched only when needed, refused when private.
import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import sharp from "sharp";
import { Code } from "@connectrpc/connect";
import { InputFileSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { checkReference, fetchReference, sniffImage } from "../../../src/core/video/reference.js";

const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#00ff00" } })
  .png()
  .toBuffer();
const file = (source: { case: "data"; value: Uint8Array } | { case: "uri"; value: string }) => create(InputFileSchema, { source });

const server = createServer((req, res) => {
  if (req.url === "/a.png") {
    res.writeHead(200, { "content-type": "image/png" });
    return res.end(png);
  }
  if (req.url === "/text") {
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end("hello");
  }
  res.writeHead(404);
  res.end();
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
t.teardown(() => new Promise<void>((r) => server.close(() => r())));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

t.test("bytes and data URLs", async (t) => {
  t.same(await checkReference(file({ case: "data", value: png }), false), { data: png, mimeType: "image/png" });
  const fromUrl = await checkReference(file({ case: "uri", value: `data:image/png;base64,${png.toString("base64")}` }), false);
  t.equal((fromUrl as { mimeType: string }).mimeType, "image/png");
  await t.rejects(checkReference(file({ case: "data", value: Buffer.from("nope") }), false), { code: Code.InvalidArgument });
  await t.rejects(checkReference(file({ case: "uri", value: "data:image/png;base64,@@@" }), false), { code: Code.InvalidArgument });
  await t.rejects(checkReference(file({ case: "uri", value: "data:text/plain,hello" }), false), { code: Code.InvalidArgument });
  await t.rejects(sniffImage(new Uint8Array()), { code: Code.InvalidArgument });
});

t.test("URLs: SSRF checked at once, fetched later", async (t) => {
  t.same(await checkReference(file({ case: "uri", value: "https://example.com/a.png" }), false), { url: "https://example.com/a.png", mimeType: "" });
  await t.rejects(checkReference(file({ case: "uri", value: `${origin}/a.png` }), false), { code: Code.InvalidArgument }, "loopback refused");
  await t.rejects(checkReference(file({ case: "uri", value: "ftp://example.com/a.png" }), false), { code: Code.InvalidArgument });
  t.same(await checkReference(file({ case: "uri", value: `${origin}/a.png` }), true), { url: `${origin}/a.png`, mimeType: "" }, "allowed when configured");

  const signal = new AbortController().signal;
  const got = await fetchReference(`${origin}/a.png`, { allowPrivate: true, signal });
  t.same([got.mimeType, Buffer.from(got.data).equals(png)], ["image/png", true]);
  await t.rejects(fetchReference(`${origin}/a.png`, { allowPrivate: false, signal }), { code: Code.InvalidArgument });
  await t.rejects(fetchReference(`${origin}/missing`, { allowPrivate: true, signal }), { code: Code.InvalidArgument, message: /404/ });
  await t.rejects(fetchReference(`${origin}/text`, { allowPrivate: true, signal }), { code: Code.InvalidArgument });
  await t.rejects(fetchReference("http://127.0.0.1:9/x.png", { allowPrivate: true, signal }), { code: Code.InvalidArgument });
});
