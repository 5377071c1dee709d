// The log upstream failures go to (raw upstream text stays here, never in a
// client's answer). Pino-compatible JSON lines on stdout, so the gateway's log
// stays one stream; tests pass a silent or recording logger.
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevel = keyof typeof LEVELS;

export interface UpstreamLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  debug(obj: Record<string, unknown>, msg: string): void;
}

export const silentLogger: UpstreamLogger = { warn: () => undefined, debug: () => undefined };

export function jsonLogger(level: LogLevel, write: (line: string) => void = (l) => process.stdout.write(l)): UpstreamLogger {
  const min = LEVELS[level];
  const emit = (lv: number, obj: Record<string, unknown>, msg: string) => {
    if (lv < min) return;
    const err = obj.err instanceof Error ? { type: obj.err.name, message: obj.err.message } : obj.err;
    write(JSON.stringify({ level: lv, time: Date.now(), pid: process.pid, component: "upstream", ...obj, ...(err ? { err } : {}), msg }) + "\n");
  };
  return {
    warn: (obj, msg) => emit(LEVELS.warn, obj, msg),
    debug: (obj, msg) => emit(LEVELS.debug, obj, msg),
  };
}
