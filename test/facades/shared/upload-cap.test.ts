// Uploads larger than a route accepts are refused without reading them, over a
// raw socket so the client controls what it sends: a declared Content-Length
// of 200 MB with only a few bytes sent, and a chunked body that keeps coming.
// Each format answers its own 413 and closes the connection, while the client
// still has most of its body unsent. Routes: /v1/files (Anthropic),
// /upload/v1beta/files (Gemini: fastify's body limit), /v1/images/edits and
// /v1/videos (OpenAI). Any other answer given before the body arrived (a
// missing key) closes the connection too.
import t from "tap";
import { connect } from "node:net";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";

const FILE_MAX = 256 * 1024;
const s = await startServer({ config: { fileMaxBytes: FILE_MAX } as never });
t.teardown(() => s.close());
const port = Number(new URL(s.baseUrl).port);

const BOUNDARY = "cap-test-boundary";
const filePart = (field: string) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
const multipart = `multipart/form-data; boundary=${BOUNDARY}`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Body bytes the client had sent when the answer came. */
  sent: number;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends a request's head and `first`; in chunked mode keeps sending `filler`
 * chunks (as fast as the server takes them) up to `max` bytes, stopping once
 * an answer arrives. Resolves when the answer is complete and the connection
 * is closed, or with status 0 if no answer came (the server waits for a body
 * the client never sends).
 */
function upload(path: string, headers: Record<string, string>, first: Buffer, mode: { declared: number } | { chunked: number }): Promise<Answer> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    const chunked = "chunked" in mode;
    const head = [
      `POST ${path} HTTP/1.1`,
      "host: 127.0.0.1",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      chunked ? "transfer-encoding: chunked" : `content-length: ${mode.declared}`,
      "",
      "",
    ].join("\r\n");
    const frame = (b: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]) : b);
    let sent = first.length;
    let answered = false;
    let answer: Omit<Answer, "closed"> | undefined;
    const received: Buffer[] = [];
    const filler = Buffer.alloc(64 * 1024, 0x61);
    const guard = setTimeout(() => finish(), 15_000);
    const finish = () => {
      clearTimeout(guard);
      sock.destroy();
      resolve(answer ? { ...answer, closed: answer !== undefined && closed } : { status: 0, headers: {}, body: null, sent, closed: false });
    };
    let closed = false;
    const pump = () => {
      while (chunked && !answered && sent < mode.chunked) {
        sent += filler.length;
        if (!sock.write(frame(filler))) return void sock.once("drain", pump);
      }
    };
    sock.on("error", () => undefined);
    sock.on("data", (d) => {
      received.push(d);
      const all = Buffer.concat(received).toString("latin1");
      const end = all.indexOf("\r\n\r\n");
      if (end < 0 || answer) return;
      const lines = all.slice(0, end).split("\r\n");
      const hs = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const body = all.slice(end + 4);
      if (body.length < Number(hs["content-length"] ?? 0)) return;
      answered = true;
      answer = { status: Number(lines[0]!.split(" ")[1]), headers: hs, body: JSON.parse(body), sent };
    });
    sock.on("close", () => {
      closed = true;
      finish();
    });
    sock.on("connect", () => {
      sock.write(head);
      sock.write(frame(first));
      pump();
    });
  });
}

const routes: { name: string; path: string; headers: Record<string, string>; first: Buffer; body: (a: Answer) => unknown }[] = [
  {
    name: "Anthropic /v1/files",
    path: "/v1/files",
    headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": multipart },
    first: filePart("file"),
    body: () => ({ type: "error", error: { type: "request_too_large", message: `The file is larger than the ${FILE_MAX} bytes a file may have.` } }),
  },
  {
    name: "Gemini /upload/v1beta/files",
    path: "/upload/v1beta/files",
    headers: { "x-goog-api-key": ADMIN_KEY, "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "content-type": "application/json" },
    first: Buffer.from('{"file":{"displayName":"big"}'),
    body: () => ({ error: { code: 413, status: "PAYLOAD_TOO_LARGE" } }),
  },
  {
    name: "OpenAI /v1/images/edits",
    path: "/v1/images/edits",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": multipart },
    first: filePart("image"),
    body: () => ({ error: { message: /^The request body is larger than the [\d.]+ MB this endpoint accepts\.$/, type: "invalid_request_error", param: null, code: "request_too_large" } }),
  },
  {
    name: "OpenAI /v1/videos",
    path: "/v1/videos",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": multipart },
    first: filePart("input_reference"),
    body: () => ({ error: { message: /^The request body is larger than the \d+ bytes this endpoint accepts\.$/, type: "invalid_request_error", param: null, code: "request_too_large" } }),
  },
];

const DECLARED = 200 * 1024 * 1024;

for (const r of routes) {
  t.test(`${r.name}: a declared 200 MB body is refused before it is sent`, async (t) => {
    const a = await upload(r.path, r.headers, r.first, { declared: DECLARED });
    t.equal(a.status, 413, "the format's 413");
    t.match(a.headers["content-type"], /^application\/json/);
    t.match(a.body, r.body(a));
    t.equal(a.headers.connection, "close", "the answer closes the connection");
    t.ok(a.closed, "the server closed it");
    t.equal(a.sent, r.first.length, "the client had sent only the first bytes");
  });

  t.test(`${r.name}: a chunked body stops being read at the cap`, async (t) => {
    const a = await upload(r.path, r.headers, r.first, { chunked: DECLARED });
    t.equal(a.status, 413, "the format's 413");
    t.match(a.body, r.body(a));
    t.equal(a.headers.connection, "close", "the answer closes the connection");
    t.ok(a.closed, "the server closed it");
    t.ok(a.sent < DECLARED, `the answer came while the client was still sending (${a.sent} bytes of ${DECLARED})`);
  });
}

t.test("an answer before the body arrived (no key) closes the connection too", async (t) => {
  const noKey: [string, Record<string, string>, number, unknown][] = [
    ["/v1/files", { "anthropic-version": "2023-06-01", "content-type": multipart }, 401, { type: "error", error: { type: "authentication_error" } }],
    ["/v1/images/edits", { "content-type": multipart }, 401, { error: { code: "invalid_api_key" } }],
    ["/v1/videos", { "content-type": multipart }, 401, { error: { type: "authentication_error" } }],
  ];
  for (const [path, headers, status, body] of noKey) {
    const a = await upload(path, headers, filePart("file"), { declared: DECLARED });
    t.equal(a.status, status, path);
    t.match(a.body, body);
    t.equal(a.headers.connection, "close", `${path}: the answer closes the connection`);
    t.ok(a.closed, `${path}: the server closed it`);
  }
});
