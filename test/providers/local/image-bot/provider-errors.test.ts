// The local image-bot engine's failures name no library text: what a task's
// failReason shows is the gateway's own sentence.
import t from "tap";
import sharp from "sharp";
import { localImageBotProvider } from "../../../../src/providers/local/image-bot/provider.js";

const engine = localImageBotProvider({ taskMs: 0, tileSize: 24 });
const quiet = { signal: new AbortController().signal, progress: async () => undefined, save: async () => undefined };

t.test("an input whose pixels do not decode fails with the gateway's words, not libvips'", async (t) => {
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#336699" } })
    .png()
    .toBuffer();
  const bad = Buffer.from(png);
  bad[29] = bad[29]! ^ 0xff; // the IHDR chunk's CRC: the header reads, the pixels do not decode
  const input = { data: new Uint8Array(bad), mimeType: "image/png" };
  const err = (await engine
    .run({ taskId: "t", operation: { kind: "blend", dimensions: "SQUARE" }, prompt: "", botType: "PRIMARY_BOT", seed: 1, inputs: [input, input] } as never, quiet)
    .catch((e: Error) => e)) as Error;
  t.type(err, Error);
  t.equal(err.message, "[internal] failed: the local engine could not process the images");
  t.notMatch(err.message, /CRC|vips|png|sharp/i);
});
