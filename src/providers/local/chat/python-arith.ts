// A safe evaluator for the arithmetic subset of Python (no eval): integers of
// any size, floats, + - * / // % ** and parentheses, with Python's semantics
// (true division gives a float, floor division and modulo round toward -inf)
// and Python's way of printing the result.

export type PyValue = { int: bigint } | { float: number };

export class PyError extends Error {
  override name = "PyError";
}

const TOKEN = /\s*(\d+\.\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|\d+e[+-]?\d+|\d+|\*\*|\/\/|[-+*/%()])/iy;
const MAX_POW_BITS = 100_000;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  // Where the trailing white space starts (trimEnd drops what \s matches);
  // testing the rest after every token would be quadratic in the tokens.
  const end = src.trimEnd().length;
  while (at < end) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (!m) throw new PyError("SyntaxError: invalid syntax");
    out.push(m[1]!);
    at = TOKEN.lastIndex;
  }
  return out;
}

const f = (v: PyValue) => ("int" in v ? Number(v.int) : v.float);

const bitLength = (b: bigint) => (b < 0n ? -b : b).toString(16).length * 4;

function floorDivInt(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function binary(op: string, a: PyValue, b: PyValue): PyValue {
  const ints = "int" in a && "int" in b;
  const zero = f(b) === 0;
  if ((op === "/" || op === "//" || op === "%") && zero) throw new PyError("ZeroDivisionError: division by zero");
  if (ints) {
    const x = (a as { int: bigint }).int;
    const y = (b as { int: bigint }).int;
    switch (op) {
      case "+":
        return { int: x + y };
      case "-":
        return { int: x - y };
      case "*":
        if (bitLength(x) + bitLength(y) > MAX_POW_BITS) throw new PyError("OverflowError: result too large for the local engine");
        return { int: x * y };
      case "/":
        return { float: Number(x) / Number(y) };
      case "//":
        return { int: floorDivInt(x, y) };
      case "%":
        return { int: x - floorDivInt(x, y) * y };
      case "**": {
        if (y < 0n) {
          if (x === 0n) throw new PyError("ZeroDivisionError: 0.0 cannot be raised to a negative power");
          return { float: Number(x) ** Number(y) };
        }
        const bits = x === 0n || x === 1n || x === -1n ? 0 : Number(y) * Math.log2(Math.abs(Number(x)));
        if (bits > MAX_POW_BITS) throw new PyError("OverflowError: result too large for the local engine");
        return { int: x ** y };
      }
    }
  }
  const x = f(a);
  const y = f(b);
  switch (op) {
    case "+":
      return { float: x + y };
    case "-":
      return { float: x - y };
    case "*":
      return { float: x * y };
    case "/":
      return { float: x / y };
    case "//":
      return { float: Math.floor(x / y) };
    case "%":
      return { float: x - y * Math.floor(x / y) };
    default: {
      const r = x ** y;
      if (!Number.isFinite(r)) throw new PyError("OverflowError: (34, 'Numerical result out of range')");
      return { float: r };
    }
  }
}

class Parser {
  i = 0;
  constructor(readonly toks: string[]) {}
  peek(): string | undefined {
    return this.toks[this.i];
  }
  expr(): PyValue {
    let v = this.term();
    while (this.peek() === "+" || this.peek() === "-") v = binary(this.toks[this.i++]!, v, this.term());
    return v;
  }
  term(): PyValue {
    let v = this.factor();
    while (["*", "/", "//", "%"].includes(this.peek() ?? "")) v = binary(this.toks[this.i++]!, v, this.factor());
    return v;
  }
  factor(): PyValue {
    const t = this.peek();
    if (t === "-" || t === "+") {
      this.i++;
      const v = this.factor();
      if (t === "+") return v;
      return "int" in v ? { int: -v.int } : { float: -v.float };
    }
    return this.power();
  }
  power(): PyValue {
    const base = this.atom();
    if (this.peek() === "**") {
      this.i++;
      return binary("**", base, this.factor());
    }
    return base;
  }
  atom(): PyValue {
    const t = this.toks[this.i++];
    if (t === undefined) throw new PyError("SyntaxError: unexpected end of expression");
    if (t === "(") {
      const v = this.expr();
      if (this.toks[this.i++] !== ")") throw new PyError("SyntaxError: '(' was never closed");
      return v;
    }
    if (/^\d+$/.test(t)) return { int: BigInt(t) };
    if (/^[\d.]/.test(t)) return { float: Number(t) };
    throw new PyError("SyntaxError: invalid syntax");
  }
}

/** Evaluates a Python arithmetic expression; throws PyError like Python would. */
export function evalPython(src: string): PyValue {
  const p = new Parser(tokenize(src));
  const v = p.expr();
  if (p.i !== p.toks.length) throw new PyError("SyntaxError: invalid syntax");
  return v;
}

/** How Python's print() shows a value. */
export function formatPython(v: PyValue): string {
  if ("int" in v) return v.int.toString();
  const x = v.float;
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e16 || a < 1e-4)) {
    const [mant, exp] = x.toExponential().split("e");
    const sign = exp!.startsWith("-") ? "-" : "+";
    return `${mant}e${sign}${exp!.replace(/^[+-]/, "").padStart(2, "0")}`;
  }
  const s = String(x);
  return Number.isInteger(x) ? `${s}.0` : s;
}
