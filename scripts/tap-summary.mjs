// tap reporter: passes the raw TAP through and ends with "N passed, N failed".
import { Transform } from "node:stream";

export default class TapSummary extends Transform {
  #buf = "";
  #counts = null;
  _transform(chunk, _enc, cb) {
    const lines = (this.#buf + chunk).split("\n");
    this.#buf = lines.pop() ?? "";
    for (const l of lines) this.#scan(l);
    cb(null, chunk);
  }
  #scan(line) {
    if (!line.startsWith("# { total:")) return;
    const get = (k) => Number((new RegExp(`\\b${k}: (\\d+)`).exec(line) ?? [])[1] ?? 0);
    this.#counts = { pass: get("pass"), fail: get("fail") };
  }
  _flush(cb) {
    if (this.#buf) this.#scan(this.#buf);
    const c = this.#counts ?? { pass: 0, fail: 0 };
    cb(null, `\n${c.pass} passed, ${c.fail} failed\n`);
  }
}
