// Process entry point: `npm start` (the transpiled copy) and `npm run dev`.
// Its only static imports are the two process-wide settings, made before any
// other module of the gateway is loaded: the nextTick entries' hidden class
// held (tick-shape.ts) and the V8 flags (v8-flags.ts). Then run.ts starts the gateway.
import { holdTickShape } from "./tick-shape.js";
import { applyV8Flags } from "./v8-flags.js";

holdTickShape();
const v8Flags = applyV8Flags();

import("./run.js")
  .then(({ run }) => run({ v8Flags }))
  .catch((err: unknown) => {
    process.stderr.write(`omnigate: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
