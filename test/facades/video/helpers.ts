// Shared bits of the video end-to-end tests.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { probe, type MediaFacts } from "../../../src/core/video/media.js";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `get` until `done` says so (at most `tries` times). */
export async function until<T>(get: () => Promise<T>, done: (v: T) => boolean, tries = 400, everyMs = 50): Promise<T> {
  let v = await get();
  for (let i = 0; i < tries && !done(v); i++) {
    await sleep(everyMs);
    v = await get();
  }
  return v;
}

/** What ffprobe says about bytes. */
export async function probeBytes(data: Uint8Array): Promise<MediaFacts | undefined> {
  const dir = mkdtempSync(path.join(tmpdir(), "omnigate-probe-"));
  try {
    const f = path.join(dir, "file");
    writeFileSync(f, data);
    return await probe(f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });
