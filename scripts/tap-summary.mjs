// tap reporter: passes the raw TAP through and ends with the failing tests
// (their subtest path and the first lines of their diagnostics) and
// "N passed, N failed". The failures come last because CI keeps only the
// tail of the output, after the coverage table.
import { Transform } from "node:stream";

const MAX_FAILURES = 20;
const DIAG_LINES = 12;

export default class TapSummary extends Transform {
  #buf = "";
  #counts = null;
  /** Open "# Subtest:" headers, by indentation. */
  #stack = [];
  /** Indentations whose current subtest has a failing child already listed. */
  #childFailed = new Set();
  #failures = [];
  /** The failure whose YAML diagnostics are being read, and the block's indentation. */
  #diag = null;

  _transform(chunk, _enc, cb) {
    const lines = (this.#buf + chunk).split("\n");
    this.#buf = lines.pop() ?? "";
    for (const l of lines) this.#scan(l);
    cb(null, chunk);
  }

  #scan(line) {
    const d = this.#diag;
    if (d && !d.open) {
      // The YAML block, when there is one, starts right after the "not ok" line.
      this.#diag = null;
      if (line.startsWith(d.indent) && line.trim() === "---") {
        this.#diag = { ...d, open: true };
        return;
      }
    } else if (d) {
      const text = line.startsWith(d.indent) ? line.slice(d.indent.length) : undefined;
      if (line.trim() === "...") this.#diag = null;
      // The test's source lines repeat what "at" points to.
      else if (text?.startsWith("source:")) d.done = true;
      else if (text !== undefined && !d.done && d.failure.diag.length < DIAG_LINES) d.failure.diag.push(text);
      return;
    }
    if (line.startsWith("# { total:")) {
      const get = (k) => Number((new RegExp(`\\b${k}: (\\d+)`).exec(line) ?? [])[1] ?? 0);
      this.#counts = { pass: get("pass"), fail: get("fail") };
      return;
    }
    const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (sub) {
      const n = sub[1].length;
      while (this.#stack.length && this.#stack.at(-1).indent >= n) this.#stack.pop();
      this.#stack.push({ indent: n, name: sub[2] });
      return;
    }
    const res = /^(\s*)(not ok|ok) \d+(?: - (.*))?$/.exec(line);
    if (!res) return;
    const n = res[1].length;
    while (this.#stack.length && this.#stack.at(-1).indent > n) this.#stack.pop();
    const own = this.#stack.at(-1)?.indent === n ? this.#stack.pop() : undefined;
    if (res[2] === "ok") {
      this.#childFailed.delete(n);
      return;
    }
    this.#childFailed.add(n - 4);
    // A subtest that failed because a child did is already named by the child.
    if (this.#childFailed.delete(n)) return;
    const name = own?.name ?? (res[3] ?? "").replace(/ # .*$/, "");
    const path = [...this.#stack.map((s) => s.name), name].join(" > ");
    const failure = { path, diag: [] };
    this.#failures.push(failure);
    this.#diag = { failure, indent: `${res[1]}  `, open: false };
  }

  _flush(cb) {
    if (this.#buf) this.#scan(this.#buf);
    const c = this.#counts ?? { pass: 0, fail: 0 };
    let out = "";
    if (this.#failures.length) {
      out += `\nFailed (${this.#failures.length}):\n`;
      for (const f of this.#failures.slice(0, MAX_FAILURES)) {
        out += `  ✖ ${f.path}\n`;
        for (const d of f.diag) out += `      ${d}\n`;
      }
      if (this.#failures.length > MAX_FAILURES) out += `  ... and ${this.#failures.length - MAX_FAILURES} more\n`;
    }
    cb(null, `${out}\n${c.pass} passed, ${c.fail} failed\n`);
  }
}
