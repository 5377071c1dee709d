// keptSecret: the configured secret, else one random secret per directory,
// made once and read back by every later caller (the URL and sealing secrets).
import t from "tap";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { keptSecret } from "../../src/lib/kept-secret.js";
import { loadConfig } from "../../src/config.js";

t.test("configured, else kept in a file of the directory", async (t) => {
  const dir = t.testdir({});
  t.equal(keptSecret("mine", dir, "s"), "mine");
  const made = keptSecret("", path.join(dir, "sub"), "s");
  t.match(made, /^[0-9a-f]{64}$/);
  t.equal(readFileSync(path.join(dir, "sub", "s"), "utf8"), made + "\n");
  t.equal(statSync(path.join(dir, "sub", "s")).mode & 0o777, 0o600);
  t.same(
    Array.from({ length: 3 }, () => keptSecret("", path.join(dir, "sub"), "s")),
    [made, made, made],
  );
  t.not(keptSecret("", path.join(dir, "sub"), "other"), made, "one secret per file");
});

t.test("OMNIGATE_SEAL_SECRET sets the sealing secret", async (t) => {
  t.equal(loadConfig({}).sealSecret, "");
  t.equal(loadConfig({ OMNIGATE_SEAL_SECRET: "s3cret" }).sealSecret, "s3cret");
});
