// The gateway's logger: one pino instance, made before anything that logs, so
// the task runner gets it at creation and fastify uses it as its
// loggerInstance (app.ts adds fastify's own serializers on a child of it).
import type { FastifyRequest } from "fastify";
import { pino, type LevelWithSilent, type Logger } from "pino";
import { serializeError } from "./log-serializers.js";

export type { Logger };

/** Where log lines go instead of stdout (tests read them). */
export interface LogStream {
  write(line: string): void;
}

/** Hides credentials that clients put in query strings (?key=...). */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:key|api_key|token)=)[^&]*/gi, "$1[redacted]");
}

/** The logger at `level`, to stdout or to `stream`. */
export function createLogger(level: LevelWithSilent, stream?: LogStream): Logger {
  return pino(
    {
      level,
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
        err: serializeError,
      },
    },
    stream,
  );
}
