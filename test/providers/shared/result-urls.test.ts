// Result URLs on other hosts than the upstream's: a public upstream's may not
// name the private network (literal hosts refused before any connection,
// names after resolution); an in-house upstream's may.
import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { Code, ConnectError } from "@connectrpc/connect";
import { resultFetcher } from "../../../src/providers/shared/result-urls.js";
import { openaiClient } from "../../../src/providers/openai-images/client.js";
import { midjourneyClient } from "../../../src/providers/midjourney/client.js";
import { videoGatewayClient } from "../../../src/providers/video-gateway/client.js";
import { silentLogger } from "../../../src/providers/shared/log.js";

const PUBLIC = new URL("https://api.upstream.example/v1/");
const PRIVATE_URLS = [
  "http://127.0.0.1:8080/a.png",
  "http://169.254.169.254/latest/meta-data/",
  "http://10.1.2.3/a.png",
  "http://[::1]/a.png",
  "http://[::ffff:7f00:1]/a.png",
  "http://localhost:3000/a.png",
  "http://2130706433/a.png",
];

t.test("a public upstream's result URLs: public hosts only, http(s), no credentials", async (t) => {
  const f = resultFetcher(PUBLIC);
  t.teardown(() => f.agent.close());
  for (const u of PRIVATE_URLS) t.match(f.problem(new URL(u)), /private or loopback/, u);
  t.match(f.problem(new URL("ftp://cdn.example/a.png")), /http/);
  t.match(f.problem(new URL("https://u:p@cdn.example/a.png")), /credentials/);
  t.equal(f.problem(new URL("https://cdn.example/a.png")), undefined);
});

t.test("an in-house upstream's result URLs may sit on its network", async (t) => {
  for (const base of ["http://127.0.0.1:9000/v1", "http://10.0.0.5/mj", "http://localhost:8080"]) {
    const f = resultFetcher(new URL(base));
    for (const u of PRIVATE_URLS) t.equal(f.problem(new URL(u)), undefined, `${base}: ${u}`);
    await f.agent.close();
  }
});

t.test("the dispatcher of a public upstream refuses a name that resolves to a private address", async (t) => {
  const server = createServer((_req, res) => res.end("img"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const pub = resultFetcher(PUBLIC);
  const own = resultFetcher(new URL("http://127.0.0.1:1/"));
  t.teardown(() => Promise.all([pub.agent.close(), own.agent.close()]));
  // "localhost" through the socket's lookup, past problem(): what a public name resolving to 127.0.0.1 meets.
  const refused = await request(`http://localhost:${port}/`, { dispatcher: pub.agent }).catch((e: unknown) => e);
  t.match(String((refused as { cause?: unknown }).cause ?? refused), /private or loopback/);
  const res = await request(`http://localhost:${port}/`, { dispatcher: own.agent });
  t.equal(await res.body.text(), "img", "an in-house upstream's dispatcher connects");
});

t.test("the image, midjourney and video clients refuse a public upstream's private result URL before connecting", async (t) => {
  const signal = new AbortController().signal;
  const images = openaiClient({ channel: "c", baseUrl: PUBLIC.href, apiKey: "k" });
  const mj = midjourneyClient({ channel: "mj", baseUrl: "https://mj.upstream.example", apiSecret: "s", timeoutMs: 1000 });
  const video = videoGatewayClient({ channel: "v", baseUrl: PUBLIC.href, apiKey: "k", maxBytes: 1024, log: silentLogger });
  t.teardown(() => Promise.all([images.close(), mj.close(), video.close()]));
  for (const [name, download] of [
    ["images", images.download],
    ["midjourney", mj.download],
    ["video", video.download],
  ] as const) {
    const err = await download("http://169.254.169.254/latest/meta-data/", signal).catch((e: unknown) => e);
    t.ok(err instanceof ConnectError && (err.code === Code.Unavailable || err.code === Code.Internal), `${name}: ${String(err)}`);
    // The refusal's own words (message or cause), not a connection that merely failed.
    t.match(`${String(err)} ${String((err as { cause?: unknown }).cause)}`, /private or loopback/, `${name}: refused as private`);
  }
});
