// The admin console at /console: the Vite bundle (npm run build) served as
// static files, with index.html for every app path (the single-page app
// routes itself) and a short page that says so when the bundle is missing.
// Hashed assets are cached for good; index.html is revalidated every time.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, FastifyReply } from "fastify";
import fastifyStatic from "@fastify/static";

/** The nearest directory at or above `from` that holds a package.json. */
export function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json at or above ${from}`);
    dir = up;
  }
  return dir;
}

/** The repository root, from src/server under tsx as from dist/server/<hash>/src/server when transpiled (npm start). */
export const ROOT_DIR = packageRoot(import.meta.dirname);
/** Where scripts/build-console.mjs writes the bundle. */
export const CONSOLE_DIST = path.join(ROOT_DIR, "dist", "console");
export const CONSOLE_PREFIX = "/console";

const IMMUTABLE = "public, max-age=31536000, immutable";
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Generated files may be served from OMNIGATE_PUBLIC_URL, another origin.
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join("; ");

const MISSING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>omnigate console</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem; max-width: 40rem">
<h1>The console is not built</h1>
<p>The admin console's bundle is missing from <code>dist/console</code>. Run <code>npm run build</code>, then reload this page
(<code>npm start</code> builds it when it is missing and Vite is installed).</p>
</body></html>
`;

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("cache-control", "no-cache")
    .header("content-security-policy", CSP)
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer");
}

/** Asset-like paths (a file name with an extension, or under assets/) get a real 404, never the app page. */
const isAssetPath = (url: string) => {
  const p = url.split("?")[0]!;
  return p.startsWith(`${CONSOLE_PREFIX}/assets/`) || /\/[^/]*\.[A-Za-z0-9]+$/.test(p);
};

export interface ConsoleRouteOptions {
  /** The bundle directory (default dist/console). */
  dir?: string;
}

export const consoleRoute: FastifyPluginAsync<ConsoleRouteOptions> = async (app: FastifyInstance, opts) => {
  const dir = opts.dir ?? CONSOLE_DIST;
  let built = false;
  const bundled = () => (built ||= existsSync(path.join(dir, "index.html")));

  await app.register(
    async (scope) => {
      await scope.register(fastifyStatic, {
        root: dir,
        prefix: "/",
        index: false,
        dotfiles: "ignore",
        cacheControl: false,
        suppressWarning: true,
        setHeaders(reply, file) {
          const rel = path.relative(dir, file).split(path.sep).join("/");
          reply.header("cache-control", rel.startsWith("assets/") ? IMMUTABLE : "no-cache");
          reply.header("x-content-type-options", "nosniff");
        },
      });
      const page = async (_req: unknown, reply: FastifyReply) => {
        if (!bundled()) return pageHeaders(reply).code(503).type("text/html; charset=utf-8").header("cache-control", "no-store").send(MISSING_PAGE);
        return pageHeaders(reply).sendFile("index.html", dir, { cacheControl: false });
      };
      scope.get("/", page);
      scope.setNotFoundHandler(async (req, reply) => {
        if ((req.method !== "GET" && req.method !== "HEAD") || isAssetPath(req.url)) {
          return reply.code(404).type("text/plain; charset=utf-8").send("Not Found");
        }
        return page(req, reply);
      });
    },
    { prefix: CONSOLE_PREFIX },
  );
};

/**
 * Builds the bundle when it is missing (npm start on a fresh checkout). Never
 * fails: without Vite, or when the build fails, it logs a warning and the
 * console serves the page that says the bundle is missing.
 */
export async function ensureConsoleBundle(
  log: Pick<FastifyBaseLogger, "info" | "warn">,
  { dir = CONSOLE_DIST, script = path.join(ROOT_DIR, "scripts", "build-console.mjs") }: { dir?: string; script?: string } = {},
): Promise<boolean> {
  if (existsSync(path.join(dir, "index.html"))) return true;
  log.info("the admin console bundle is missing: building it (npm run build)");
  const started = Date.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    let output = "";
    // --if-stale: gateways starting together build it once (the script takes turns through a lock).
    const child = spawn(process.execPath, [script, "--if-stale"], { cwd: ROOT_DIR, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", (err) => resolve({ code: null, output: String(err) }));
    child.once("close", (c) => resolve({ code: c, output }));
  });
  if (code === 0 && existsSync(path.join(dir, "index.html"))) {
    log.info({ ms: Date.now() - started }, "admin console built");
    return true;
  }
  log.warn(
    { exitCode: code, output: output.trim().slice(-2000) },
    code === 3 ? "vite is not installed: /console says the bundle is missing" : "building the admin console failed: /console says the bundle is missing",
  );
  return false;
}
