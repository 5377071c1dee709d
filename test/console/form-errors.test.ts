// Field errors of the console's forms (console/src/lib/form-errors.ts): what
// tRPC's input check and the core answer, mapped to the field they are about.
import t from "tap";
import { serverFieldErrors, wholeNumber } from "../../console/src/lib/form-errors.js";

const FIELDS = ["concurrency", "queueSize", "remark"] as const;

t.test("zod issues from tRPC's input check land on their field", async (t) => {
  const issues = [
    { code: "too_small", path: ["concurrency"], message: "Too small: expected number to be >=1" },
    { code: "too_big", path: ["queueSize"], message: "Too big: expected number to be <=10000" },
    { code: "too_big", path: ["queueSize"], message: "a second one is not shown" },
  ];
  t.same(serverFieldErrors(new Error(JSON.stringify(issues, null, 2)), FIELDS), {
    concurrency: "Too small: expected number to be >=1",
    queueSize: "Too big: expected number to be <=10000",
  });
  t.equal(serverFieldErrors(new Error(JSON.stringify([{ path: ["id"], message: "required" }])), FIELDS), null, "not a form field");
});

t.test("the core's '<field> must ...' lands on its field", async (t) => {
  t.same(serverFieldErrors(new Error("concurrency must be between 1 and 100"), FIELDS), { concurrency: "Must be between 1 and 100" });
  t.same(serverFieldErrors(new Error("queueSize: must be between 0 and 10000"), FIELDS), { queueSize: "Must be between 0 and 10000" });
  t.equal(serverFieldErrors(new Error("account x does not exist"), FIELDS), null);
  t.equal(serverFieldErrors(new Error("concurrencyLimit is odd"), FIELDS), null, "a whole word only");
  t.equal(serverFieldErrors("[not json", FIELDS), null);
});

t.test("wholeNumber", async (t) => {
  t.same(wholeNumber(" 7 ", 1, 100), { value: 7 });
  t.same(wholeNumber("0", 0, 10_000), { value: 0 });
  t.match(wholeNumber("0", 1, 100), { error: /from 1 to 100/ });
  t.match(wholeNumber("101", 1, 100), { error: /from 1 to 100/ });
  t.match(wholeNumber("2.5", 1, 100), { error: /not a whole number/ });
  t.match(wholeNumber("", 1, 100), { error: /^Enter a whole number/ });
  t.match(wholeNumber("1e3", 0, 10_000), { error: /not a whole number/ });
});
