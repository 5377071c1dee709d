import t from "tap";
import { findExpression } from "../../../../src/providers/local/chat/code-exec.js";
import { evalPython, formatPython, PyError } from "../../../../src/providers/local/chat/python-arith.js";

t.test("evaluates like Python prints", async (t) => {
  const table: Array<[string, string]> = [
    ["1 + 2 * 3", "7"],
    ["(1 + 2) * 3", "9"],
    ["7 / 2", "3.5"],
    ["4 / 2", "2.0"],
    ["7 // 2", "3"],
    ["-7 // 2", "-4"],
    ["-7 % 3", "2"],
    ["7 % -3", "-2"],
    ["2 ** 10", "1024"],
    ["2 ** -1", "0.5"],
    ["-2 ** 2", "-4"],
    ["2 ** 3 ** 2", "512"],
    ["2 ** 100", "1267650600228229401496703205376"],
    ["0.1 + 0.2", "0.30000000000000004"],
    ["1 / 3", "0.3333333333333333"],
    ["1e20 * 1000", "1e+23"],
    ["1 / 100000", "1e-05"],
    ["7.5 // 2", "3.0"],
    ["-7.5 % 2", "0.5"],
    ["+5 - -3", "8"],
    [".5 * 4", "2.0"],
  ];
  for (const [src, out] of table) t.equal(formatPython(evalPython(src)), out, src);
});

t.test("errors", async (t) => {
  for (const [src, msg] of [
    ["1 / 0", /ZeroDivisionError/],
    ["5 % 0", /ZeroDivisionError/],
    ["0 ** -1", /ZeroDivisionError/],
    ["10 ** 100000", /OverflowError/],
    ["10.0 ** 400", /OverflowError/],
    ["(1 + 2", /SyntaxError/],
    ["1 +", /SyntaxError/],
    ["1 2", /SyntaxError/],
    ["abc", /SyntaxError/],
  ] as const) {
    t.throws(() => evalPython(src), msg, src);
    t.throws(() => evalPython(src), PyError);
  }
});

t.test("finds arithmetic in a prompt", async (t) => {
  t.equal(findExpression("What is 12 x 7? Calculate it."), "12 * 7");
  t.equal(findExpression("Compute (3 + 4) * 5 for me, not 9"), "(3 + 4) * 5");
  t.equal(findExpression("calculate 2^8 plus 1"), "2**8 + 1");
  t.equal(findExpression("what is 10 divided by 4"), "10 / 4");
  t.equal(findExpression("run 42"), "", "a lone number is no expression");
});

t.test("huge products are refused, not computed", async (t) => {
  t.throws(() => evalPython("2 ** 60000 * 2 ** 60000"), /OverflowError/);
  t.equal(formatPython(evalPython("2 ** 64 * 2 ** 64")), (2n ** 128n).toString());
});
