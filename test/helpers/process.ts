// Runs the gateway as a child process exactly as `npm start` does (the start
// script's command line, read from package.json).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/);
}

export interface Gateway {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Resolves with the ports once the gateway logs that it listens (rejects if it exits first). */
  ready: Promise<{ http: number; grpc: number }>;
}

export function spawnGateway(env: Record<string, string>): Gateway {
  const [cmd, ...args] = startCommand();
  // The child runs transpiled copies of src/ from dist/server/<hash>/, which
  // tap would count as files of their own beside the sources. tap's
  // process-info re-adds its hooks to every spawned child unless the child's
  // env sets them, so switch coverage off explicitly: children report none.
  const { NODE_V8_COVERAGE: _coverage, ...parentEnv } = process.env;
  parentEnv._TAPJS_PROCESSINFO_COVERAGE_ = "0";
  const proc = spawn(cmd!, args, {
    cwd: ROOT,
    env: { ...parentEnv, OMNIGATE_PORT: "0", OMNIGATE_GRPC_PORT: "0", OMNIGATE_HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const ready = new Promise<{ http: number; grpc: number }>((resolve, reject) => {
    const check = () => {
      for (const line of out.split("\n")) {
        if (!line.includes("omnigate listening")) continue;
        const rec = JSON.parse(line) as { http: number; grpc: number };
        resolve({ http: rec.http, grpc: rec.grpc });
        return;
      }
    };
    proc.stdout!.on("data", check);
    void exited.then((code) => reject(new Error(`gateway exited with ${code} before listening: ${err || out}`)));
  });
  ready.catch(() => undefined);
  return { proc, stdout: () => out, stderr: () => err, exited, ready };
}

/** Status of a ListModels call with the key over Connect JSON on the gateway's HTTP port. */
export async function listModels(http: number, key: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${http}/omnigate.model.v1.ModelService/ListModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: "{}",
  });
  return res.status;
}
