// Which callback addresses are refused without OMNIGATE_CALLBACK_ALLOW_PRIVATE.
import t from "tap";
import { callbackUrlProblem, canonicalHost, guardedLookup, isPrivateAddress, SsrfError } from "../../../src/core/tasks/ssrf.js";

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
  "64:ff9b::7f00:1",
  "64:ff9b:1::a00:1",
  "::7f00:1",
  "::127.0.0.1",
  "::a00:1",
  "0:0:0:0:0:ffff:7f00:1",
  "::FFFF:7F00:1",
  "::ffff:0:7f00:1",
  "::ffff:0:127.0.0.1",
  "2002:7f00:1::",
  "2002:a9fe:a9fe::1",
  "2002:c0a8:101:1::1",
  "fe80::1%eth0",
  "[::1]",
  "localhost",
  "LOCALHOST.",
  "localhost..",
  "Api.LocalHost.",
  "ip6-localhost",
];
const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "93.184.216.34",
  "2606:4700:4700::1111",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "::808:808",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "2001:4860:4860::8888",
  "example.com",
  "example.com.",
  "localhost.example.com",
];

t.test("private, loopback, link-local and reserved addresses are refused", async (t) => {
  for (const a of PRIVATE) t.ok(isPrivateAddress(a), a);
  for (const a of PUBLIC) t.notOk(isPrivateAddress(a), a);
});

t.test("one canonical form for every spelling of a host", async (t) => {
  t.same(canonicalHost("LOCALHOST."), { kind: "name", name: "localhost" });
  t.same(canonicalHost("[::ffff:7f00:1]"), { kind: "ipv4", address: "127.0.0.1" });
  t.same(canonicalHost("::7f00:1"), { kind: "ipv4", address: "127.0.0.1" });
  t.same(canonicalHost("64:ff9b::c0a8:101"), { kind: "ipv4", address: "192.168.1.1" });
  t.same(canonicalHost("2002:c0a8:101::"), { kind: "ipv4", address: "192.168.1.1" });
  t.same(canonicalHost("fe80::1%eth0"), { kind: "ipv6", address: "fe80::1" });
  t.same(canonicalHost("2606:4700:4700::1111"), { kind: "ipv6", address: "2606:4700:4700::1111" });
  t.same(canonicalHost("10.0.0.1"), { kind: "ipv4", address: "10.0.0.1" });
});

t.test("callback URLs: scheme, credentials, literal private hosts and local names", async (t) => {
  t.equal(callbackUrlProblem("https://hooks.example.com/cb", false), undefined);
  t.equal(callbackUrlProblem("not a url", false), "is not a valid URL");
  t.equal(callbackUrlProblem("ftp://example.com/x", false), "must be an http or https URL");
  t.equal(callbackUrlProblem("https://user:pw@example.com/x", false), "must not carry credentials");
  for (const u of [
    "http://127.0.0.1:8080/cb",
    "http://[::1]/cb",
    "http://localhost/cb",
    "http://api.localhost/cb",
    "http://169.254.169.254/latest",
    "http://LOCALHOST.:8080/cb",
    "http://localhost../cb",
    "http://[::7f00:1]:8080/cb",
    "http://[::127.0.0.1]/cb",
    "http://[::ffff:127.0.0.1]/cb",
    "http://[::ffff:0:7f00:1]/cb",
    "http://[64:ff9b::a9fe:a9fe]/cb",
    "http://[2002:7f00:1::]/cb",
    "http://0x7f.1/cb",
    "http://2130706433/cb",
  ]) {
    t.equal(callbackUrlProblem(u, false), "points to a private or loopback address", u);
    t.equal(callbackUrlProblem(u, true), undefined, `${u} with private allowed`);
  }
});

t.test("the guarded lookup refuses names that resolve to loopback", async (t) => {
  const err = await new Promise<unknown>((resolve) => guardedLookup("localhost", { all: true }, (e) => resolve(e)));
  t.type(err, SsrfError);
});

t.test("the guarded lookup judges the name as the submit check does, before DNS", async (t) => {
  for (const name of ["LOCALHOST.", "api.localhost.", "localhost.localdomain"]) {
    const err = await new Promise<unknown>((resolve) => guardedLookup(name, {}, (e) => resolve(e)));
    t.type(err, SsrfError, name);
    t.equal(callbackUrlProblem(`http://${name}:8080/`, false), "points to a private or loopback address", `${name} at submit too`);
  }
});
