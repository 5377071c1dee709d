// The client suite's harness: installs the pinned CLIs (test/clients/package.json,
// through scripts/install-clients.mjs), starts the gateway in-process on its
// local engine behind a recording proxy (which counts the tool calls the
// engine makes, and passes WebSocket upgrades through, recording their
// status), and runs a CLI headless with a temporary HOME, a temporary
// working folder, no network beyond the gateway and a timeout.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../helpers/process.js";
import { ADMIN_KEY, startServer, tempDir, type TestServer } from "../helpers/app.js";

const CLI_TIMEOUT_MS = 60_000;

/** test/clients/node_modules/.bin, installed once for all workers. */
export async function installClients(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, "scripts/install-clients.mjs")], { env: cleanEnv(), maxBuffer: 1 << 24 });
  return stdout.trim().split("\n").at(-1)!;
}

/** The environment without the test runner's hooks (loaders, coverage), which must not reach the CLIs. */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(NODE_OPTIONS|NODE_V8_COVERAGE|_?TAP)/.test(e[0])));
}

/** One request through the proxy, with the answer as it was sent. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  body: string;
  answer: string;
  /** The Upgrade header of a passed-through upgrade request (e.g. "websocket"); the answer then holds the raw bytes the gateway sent. */
  upgrade?: string;
}

export interface ToolCall {
  name: string;
  input: unknown;
}

/** The JSON objects of an answer: the whole body, or each SSE `data:` line. */
function answerObjects(answer: string): unknown[] {
  try {
    return [JSON.parse(answer)];
  } catch {
    return answer.split("\n").flatMap((line) => {
      if (!line.startsWith("data:")) return [];
      try {
        return [JSON.parse(line.slice(5))];
      } catch {
        return [];
      }
    });
  }
}

/** What toolCalls reads of an answer object, in either format. */
interface AnswerObject {
  type?: string;
  index?: number;
  content_block?: { type?: string; name: string; input?: unknown };
  delta?: { type?: string; partial_json?: string };
  content?: Array<{ type?: string; name: string; input?: unknown }>;
  candidates?: Array<{ content?: { parts?: Array<{ functionCall?: { name: string; args?: unknown } }> } }>;
  object?: string;
  item?: ResponsesItem;
  output?: ResponsesItem[];
}

/** A Responses output item, as far as toolCalls reads it. */
interface ResponsesItem {
  type?: string;
  name?: string;
  arguments?: string;
  input?: string;
}

/** A Responses function_call (arguments parsed) or custom_tool_call (its free-form input), else nothing. */
function responsesCall(item: ResponsesItem | undefined): ToolCall[] {
  if (item?.type === "function_call") return [{ name: item.name!, input: JSON.parse(item.arguments || "{}") }];
  if (item?.type === "custom_tool_call") return [{ name: item.name!, input: item.input }];
  return [];
}

/**
 * The tool calls in an answer: Messages `tool_use` blocks (streamed ones
 * put together from their `input_json_delta` fragments), generateContent
 * `functionCall` parts, Responses `function_call` and `custom_tool_call`
 * items (streamed ones from `response.output_item.done`).
 */
export function toolCalls(x: Exchange): ToolCall[] {
  const out: ToolCall[] = [];
  const streamed = new Map<number, { name: string; json: string }>();
  for (const o of answerObjects(x.answer) as Array<AnswerObject | null>) {
    if (o?.type === "content_block_start" && o.content_block?.type === "tool_use") streamed.set(o.index!, { name: o.content_block.name, json: "" });
    if (o?.type === "content_block_delta" && o.delta?.type === "input_json_delta") streamed.get(o.index!)!.json += o.delta.partial_json;
    if (o?.type === "content_block_stop" && streamed.has(o.index!)) {
      const call = streamed.get(o.index!)!;
      out.push({ name: call.name, input: JSON.parse(call.json || "{}") });
    }
    if (o?.type === "message") for (const b of o.content ?? []) if (b.type === "tool_use") out.push({ name: b.name, input: b.input });
    for (const c of o?.candidates ?? []) for (const p of c.content?.parts ?? []) if (p.functionCall) out.push({ name: p.functionCall.name, input: p.functionCall.args });
    if (o?.type === "response.output_item.done") out.push(...responsesCall(o.item));
    if (o?.object === "response") for (const item of o.output ?? []) out.push(...responsesCall(item));
  }
  return out;
}

export interface Gateway {
  server: TestServer;
  /** The proxy's base URL, for the CLIs. */
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** The gateway on its local engine, behind a proxy that records every exchange. */
export async function startGateway(): Promise<Gateway> {
  const server = await startServer();
  const target = new URL(server.baseUrl);
  const exchanges: Exchange[] = [];
  const proxy = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on("data", (c: Buffer) => body.push(c));
    req.on("end", () => {
      const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        const answer: Buffer[] = [];
        ur.on("data", (c: Buffer) => {
          answer.push(c);
          res.write(c);
        });
        ur.on("end", () => {
          exchanges.push({ method: req.method!, url: req.url!, status: ur.statusCode!, body: Buffer.concat(body).toString(), answer: Buffer.concat(answer).toString() });
          res.end();
        });
      });
      up.on("error", (err) => res.destroy(err));
      up.end(Buffer.concat(body));
    });
  });
  // An upgrade (Codex's WebSocket first try) goes to the gateway byte for byte; the status is read off its first line.
  proxy.on("upgrade", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const up = net.connect(Number(target.port), target.hostname);
    let answer = "";
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join("\r\n")}\r\n\r\n`);
    up.write(head);
    up.on("data", (c: Buffer) => {
      if (answer.length < 1 << 16) answer += c.toString("latin1");
    });
    up.pipe(socket);
    socket.pipe(up);
    const status = () => Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      exchanges.push({ method: req.method!, url: req.url!, status: status(), body: "", answer, upgrade: String(req.headers.upgrade ?? "") });
      socket.destroy();
      up.destroy();
    };
    up.on("close", record);
    up.on("error", record);
    socket.on("close", record);
    socket.on("error", record);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    exchanges,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await server.close();
    },
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A CLI run with the exchanges it made through the proxy and the tool calls the engine answered with. */
export async function traced(gw: Gateway, run: () => Promise<Run>): Promise<{ res: Run; exchanges: Exchange[]; calls: ToolCall[] }> {
  const from = gw.exchanges.length;
  const res = await run();
  const exchanges = gw.exchanges.slice(from);
  return { res, exchanges, calls: exchanges.flatMap(toolCalls) };
}

export interface Sandbox {
  home: string;
  /** The CLI's working folder, with `files` in it. */
  cwd: string;
  remove(): void;
}

/** A temporary HOME and working folder. */
export function sandbox(files: Record<string, string> = {}): Sandbox {
  const root = tempDir("omnigate-client-");
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  mkdirSync(home);
  mkdirSync(cwd);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(cwd, name), text);
  return { home, cwd, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Runs `cmd` in the sandbox with only `env` beside PATH, HOME and a UTF-8
 * locale (no proxy settings, no keys of the machine's, none of the runner's
 * hooks), killed after CLI_TIMEOUT_MS.
 */
export function runCli(cmd: string, args: string[], box: Sandbox, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: box.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: box.home, LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1", CI: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: CLI_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export { ADMIN_KEY };
