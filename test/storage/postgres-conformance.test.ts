import t from "tap";
import { openPostgresStorage } from "../../src/storage/postgres/pg-storage.js";
import type { Storage } from "../../src/storage/types.js";
import { pgSchema } from "../helpers/pg.js";
import { storageConformance } from "./conformance.js";

storageConformance(t, async (t) => {
  const handles: Storage[] = [];
  // Registered first: the pools close before the schema is dropped.
  t.teardown(() => Promise.all(handles.map((h) => h.close())));
  const { url, schema } = await pgSchema(t);
  const openOne = async () => {
    const s = await openPostgresStorage({ url, schema, poolSize: 4 });
    handles.push(s);
    return s;
  };
  return { storage: await openOne(), again: openOne };
});
