// Configuration: environment variables plus an optional JSON or YAML file
// (path in OMNIGATE_CONFIG), validated with zod. Environment wins over the file.
// A bad value is reported with the name of the setting, and startup stops.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const port = z.coerce
  .number({ error: "expected a port number" })
  .int("expected a whole number")
  .min(0, "expected a port between 0 and 65535")
  .max(65535, "expected a port between 0 and 65535");

const boolish = z.union([z.boolean(), z.enum(["1", "0", "true", "false", "yes", "no", ""])]).transform((v) => v === true || v === "1" || v === "true" || v === "yes");

const positiveInt = z.coerce.number().int("expected a whole number").min(0, "expected a number >= 0");

/** The built-in local engine. */
const localSchema = z
  .object({
    /** Chat model names the local engine serves once channels exist; "*" (default) serves every name while no channel is configured. */
    chatModels: z.array(z.string().min(1)).default(["*"]),
    /** Words that make the local chat engine block a prompt (safety simulation). */
    blocklist: z.array(z.string().min(1)).default(["forbidden-topic"]),
    /** Delay between streamed chunks of the local chat engine, in milliseconds. */
    chunkDelayMs: positiveInt.default(0),
    /** Secret used to sign local thinking blocks; derived from the data dir when empty. */
    signingSecret: z.string().default(""),
  })
  .strict()
  .default({ chatModels: ["*"], blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "" });

export const fileSchema = z
  .object({
    port: port.optional(),
    grpcPort: port.optional(),
    host: z.string().min(1).optional(),
    dataDir: z.string().min(1).optional(),
    publicUrl: z.url().optional(),
    bootstrapKey: z.string().min(8, "must be at least 8 characters").optional(),
    logLevel: z.enum(LOG_LEVELS).optional(),
    shutdownGraceMs: positiveInt.optional(),
    bodyLimitBytes: positiveInt.optional(),
    dev: z.boolean().optional(),
    local: localSchema.optional(),
  })
  .strict();

export const configSchema = z.object({
  port: port.default(8080),
  grpcPort: port.default(8081),
  host: z.string().min(1).default("127.0.0.1"),
  dataDir: z.string().min(1).default("./data"),
  publicUrl: z.url().optional(),
  bootstrapKey: z.string().min(8, "must be at least 8 characters").optional(),
  logLevel: z.enum(LOG_LEVELS).default("info"),
  shutdownGraceMs: positiveInt.default(10_000),
  bodyLimitBytes: positiveInt.default(32 * 1024 * 1024),
  dev: z.boolean().default(false),
  local: localSchema,
});

export type Config = z.infer<typeof configSchema>;
export type LocalConfig = Config["local"];

/** Environment variable -> config key. */
const ENV: Record<string, { key: keyof z.input<typeof configSchema>; parse?: (v: string) => unknown }> = {
  OMNIGATE_PORT: { key: "port" },
  OMNIGATE_GRPC_PORT: { key: "grpcPort" },
  OMNIGATE_HOST: { key: "host" },
  OMNIGATE_DATA_DIR: { key: "dataDir" },
  OMNIGATE_PUBLIC_URL: { key: "publicUrl" },
  OMNIGATE_BOOTSTRAP_KEY: { key: "bootstrapKey" },
  OMNIGATE_LOG_LEVEL: { key: "logLevel" },
  OMNIGATE_SHUTDOWN_GRACE_MS: { key: "shutdownGraceMs" },
  OMNIGATE_BODY_LIMIT: { key: "bodyLimitBytes" },
  OMNIGATE_DEV: { key: "dev", parse: (v) => boolish.parse(v) },
};

/** Nested environment overrides of the local engine. */
const LOCAL_ENV: Record<string, { key: keyof LocalConfig; parse: (v: string) => unknown }> = {
  OMNIGATE_LOCAL_CHUNK_MS: { key: "chunkDelayMs", parse: (v) => v },
  OMNIGATE_LOCAL_BLOCKLIST: { key: "blocklist", parse: (v) => v.split(",").map((s) => s.trim()).filter(Boolean) },
  OMNIGATE_LOCAL_SIGNING_SECRET: { key: "signingSecret", parse: (v) => v },
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

function formatIssues(error: z.ZodError, names: (p: PropertyKey[]) => string): string {
  return error.issues.map((i) => `${names(i.path)}: ${i.message}`).join("; ");
}

function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`OMNIGATE_CONFIG: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`OMNIGATE_CONFIG: ${file} is not valid ${/\.ya?ml$/i.test(file) ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ConfigError(`invalid setting in ${file}: ${formatIssues(parsed.error, (p) => p.map((s) => (typeof s === "number" ? `[${s}]` : String(s))).join(".").replace(/\.\[/g, "["))}`);
  }
  return parsed.data as Record<string, unknown>;
}

/** Loads and validates the configuration. Throws ConfigError naming the setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const fromFile = env.OMNIGATE_CONFIG ? readFile(env.OMNIGATE_CONFIG) : {};
  const merged: Record<string, unknown> = { ...fromFile };
  const origin = new Map<string, string>();
  for (const [name, { key, parse }] of Object.entries(ENV)) {
    const v = env[name];
    if (v === undefined || v === "") continue;
    try {
      merged[key] = parse ? parse(v) : v;
    } catch {
      throw new ConfigError(`${name}: invalid value ${JSON.stringify(v)}`);
    }
    origin.set(key, name);
  }
  const local: Record<string, unknown> = { ...((fromFile.local as Record<string, unknown> | undefined) ?? {}) };
  for (const [name, { key, parse }] of Object.entries(LOCAL_ENV)) {
    const v = env[name];
    if (v === undefined || v === "") continue;
    local[key] = parse(v);
    origin.set(`local.${key}`, name);
  }
  merged.local = local;
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid configuration: ${formatIssues(parsed.error, (p) => {
        const key = p.map(String).join(".");
        const envName = origin.get(key);
        const value = envName ? JSON.stringify(env[envName]) : undefined;
        return envName ? `${envName} (${value})` : env.OMNIGATE_CONFIG ? `${key} in ${env.OMNIGATE_CONFIG}` : key;
      })}`,
    );
  }
  const config = parsed.data;
  config.dataDir = path.resolve(config.dataDir);
  return config;
}

/** The base for absolute URLs the gateway hands out. */
export function publicBaseUrl(config: Config, boundPort?: number): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, "");
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const h = host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${boundPort ?? config.port}`;
}
