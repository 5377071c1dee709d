// Preload for the gateway (node --import bench/heap-sample-preload.mjs ...):
// the first SIGUSR2 starts V8's sampling heap profiler (1 KiB interval,
// objects collected by both collectors included, so it counts what was
// allocated, not what is alive); the second stops it and writes
// <pid>.heapprofile into BENCH_HEAP_DIR (default: the working directory).
// bench/heap-summary.mjs reads it. Set BENCH_HEAP_SURVIVORS=1 to leave out
// what young-generation collections freed: what remains is what was promoted.
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
import path from "node:path";

const session = new Session();
session.connect();
session.post("HeapProfiler.enable");
let sampling = false;
process.on("SIGUSR2", () => {
  if (!sampling) {
    sampling = true;
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: process.env.BENCH_HEAP_SURVIVORS !== "1",
    });
    return;
  }
  sampling = false;
  session.post("HeapProfiler.stopSampling", (err, res) => {
    if (err) return console.error("heap sampling failed", err);
    const file = path.join(process.env.BENCH_HEAP_DIR ?? ".", `${process.pid}.heapprofile`);
    writeFileSync(file, JSON.stringify(res.profile));
    console.error(`heap profile written to ${file}`);
  });
});
