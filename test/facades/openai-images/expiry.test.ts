// File URLs expire 60 minutes after generation (clock injected), are signed,
// and the sweeper deletes expired files.
import { existsSync } from "node:fs";
import path from "node:path";
import t from "tap";
import { signFileUrl } from "../../../src/storage/blob/signed-url.js";
import { fetchBytes, startImages } from "./helpers.js";

let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
const env = await startImages({ now: () => clock });
t.teardown(() => env.server.close());
const { client, server } = env;

t.test("a URL works for 60 minutes, then answers 403; the sweeper deletes the file", async (t) => {
  const res = await client.images.generate({ prompt: "a clock tower", size: "256x256" });
  t.equal(res.created, Math.floor(clock / 1000));
  const url = res.data![0]!.url!;
  const id = new URL(url).pathname.split("/").pop()!;
  t.equal(Number(new URL(url).searchParams.get("exp")), Math.floor(clock / 1000) + 3600);
  const onDisk = path.join(server.dataDir, "files", id);
  t.ok(existsSync(onDisk), "stored under <dataDir>/files");

  t.equal((await fetchBytes(url)).status, 200);
  const head = await fetch(url, { method: "HEAD" });
  t.equal(head.status, 200, "HEAD works too");
  t.equal(head.headers.get("content-type"), "image/png");
  t.equal(Number(head.headers.get("content-length")), (await server.deps.storage.files.get(id))!.size);
  clock += 59 * 60 * 1000;
  t.equal((await fetchBytes(url)).status, 200, "still valid after 59 minutes");
  t.equal(await server.deps.files.sweeper.runOnce(), 0, "nothing expired yet");

  clock += 60 * 1000;
  const expired = await fetchBytes(url);
  t.equal(expired.status, 403, "expired at 60 minutes");
  t.same((expired.json as { error: { code: string } }).error.code, "url_expired");

  t.equal(await server.deps.files.sweeper.runOnce(), 1, "the sweeper deletes it");
  t.notOk(existsSync(onDisk), "bytes removed");
  t.notOk(await server.deps.storage.files.get(id), "metadata removed");
  const resigned = signFileUrl(server.baseUrl, id, clock + 60_000, server.deps.files.urlSecret);
  const gone = await fetchBytes(resigned);
  t.equal(gone.status, 404, "a valid signature for a deleted file is 404");
  t.equal((gone.json as { error: { code: string } }).error.code, "file_not_found");
});

t.test("tampered URLs are 403", async (t) => {
  const res = await client.images.generate({ prompt: "a bridge", size: "256x256" });
  const url = new URL(res.data![0]!.url!);
  const sig = url.searchParams.get("sig")!;
  const exp = Number(url.searchParams.get("exp"));
  const variants = [
    `${url.origin}${url.pathname}?exp=${exp + 3600}&sig=${sig}`,
    `${url.origin}${url.pathname}?exp=${exp}&sig=${sig.replace(/^./, sig[0] === "a" ? "b" : "a")}`,
    `${url.origin}${url.pathname}?exp=${exp}`,
    `${url.origin}${url.pathname}`,
    `${url.origin}/files/file_${"0".repeat(32)}?exp=${exp}&sig=${sig}`,
  ];
  for (const v of variants) {
    const r = await fetchBytes(v);
    t.equal(r.status, 403, v);
    t.equal((r.json as { error: { code: string } }).error.code, "invalid_signature");
  }
  t.equal((await fetchBytes(url.toString())).status, 200, "the original still works");
});

t.test("the sweeper timer runs on its own and stops with the app", async (t) => {
  let now = Date.UTC(2030, 0, 1);
  const e = await startImages({ now: () => now, config: { images: { sweepIntervalMs: 10, urlTtlMs: 1000, aliases: {} } } as never });
  t.teardown(() => e.server.close());
  const res = await e.client.images.generate({ prompt: "short-lived", size: "256x256" });
  const id = new URL(res.data![0]!.url!).pathname.split("/").pop()!;
  t.ok(await e.server.deps.storage.files.get(id));
  now += 1001;
  for (let i = 0; i < 500 && (await e.server.deps.storage.files.get(id)); i++) await new Promise((r) => setTimeout(r, 10));
  t.notOk(await e.server.deps.storage.files.get(id), "swept by the timer");
});

t.test("publicUrl is the base of file URLs when set", async (t) => {
  const e = await startImages({ config: { publicUrl: "https://images.example.com/gw/" } as never });
  t.teardown(() => e.server.close());
  const res = await e.client.images.generate({ prompt: "public", size: "256x256" });
  t.match(res.data![0]!.url!, /^https:\/\/images\.example\.com\/gw\/files\/file_[0-9a-f]{32}\?exp=\d+&sig=[0-9a-f]{64}$/);
});
