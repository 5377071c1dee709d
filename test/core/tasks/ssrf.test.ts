// Which callback addresses are refused without OMNIGATE_CALLBACK_ALLOW_PRIVATE.
import t from "tap";
import { callbackUrlProblem, guardedLookup, isPrivateAddress, SsrfError } from "../../../src/core/tasks/ssrf.js";

const PRIVATE = [
  "127.0.0.1",
  "127.1.2.3",
  "10.0.0.1",
  "172.16.5.4",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "0.0.0.0",
  "224.0.0.1",
  "255.255.255.255",
  "::1",
  "::",
  "fe80::1",
  "fc00::1",
  "fd12:3456::1",
  "ff02::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.1.2.3",
  "64:ff9b::10.0.0.1",
];
const PUBLIC = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"];

t.test("private, loopback, link-local and reserved addresses are refused", async (t) => {
  for (const a of PRIVATE) t.ok(isPrivateAddress(a), a);
  for (const a of PUBLIC) t.notOk(isPrivateAddress(a), a);
});

t.test("callback URLs: scheme, credentials, literal private hosts and local names", async (t) => {
  t.equal(callbackUrlProblem("https://hooks.example.com/cb", false), undefined);
  t.equal(callbackUrlProblem("not a url", false), "is not a valid URL");
  t.equal(callbackUrlProblem("ftp://example.com/x", false), "must be an http or https URL");
  t.equal(callbackUrlProblem("https://user:pw@example.com/x", false), "must not carry credentials");
  for (const u of ["http://127.0.0.1:8080/cb", "http://[::1]/cb", "http://localhost/cb", "http://api.localhost/cb", "http://169.254.169.254/latest"]) {
    t.equal(callbackUrlProblem(u, false), "points to a private or loopback address", u);
    t.equal(callbackUrlProblem(u, true), undefined, `${u} with private allowed`);
  }
});

t.test("the guarded lookup refuses names that resolve to loopback", async (t) => {
  const err = await new Promise<unknown>((resolve) => guardedLookup("localhost", { all: true }, (e) => resolve(e)));
  t.type(err, SsrfError);
});
