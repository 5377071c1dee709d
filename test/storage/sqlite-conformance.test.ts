import t from "tap";
import { rmSync } from "node:fs";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite-storage.js";
import type { Storage } from "../../src/storage/types.js";
import { tempDir } from "../helpers/app.js";
import { storageConformance } from "./conformance.js";

storageConformance(t, async (t) => {
  const dir = tempDir("omnigate-conformance-");
  const handles: Storage[] = [];
  const openOne = () => {
    const s = openSqliteStorage(dir);
    handles.push(s);
    return s;
  };
  t.teardown(async () => {
    await Promise.all(handles.map((h) => h.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  return { storage: openOne(), again: async () => openOne() };
});
