// The per-request logger fastify hands out as req.log, made only when a
// request logs something. fastify asks for a child logger (bound to the
// request id) on every request; building a pino child serialises its
// bindings, a few microseconds a request that most requests never use.
import type { FastifyBaseLogger } from "fastify";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type Bindings = Record<string, unknown>;
type Leveled = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type ChildOptions = Parameters<FastifyBaseLogger["child"]>[1];

export class RequestLogger {
  private made: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly binds: Bindings,
    private readonly opts: ChildOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.binds, this.opts));
  }

  private log(level: Level, args: unknown[]): void {
    // A level the logger would drop costs no child.
    if (!this.isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }
  set level(v: string) {
    this.real.level = v;
  }
  isLevelEnabled(level: string): boolean {
    const l = (this.made ?? this.parent) as Partial<Leveled>;
    // A logger without isLevelEnabled (not pino) is asked by logging.
    return l.isLevelEnabled ? l.isLevelEnabled(level) : true;
  }
  fatal(...args: unknown[]): void {
    this.log("fatal", args);
  }
  error(...args: unknown[]): void {
    this.log("error", args);
  }
  warn(...args: unknown[]): void {
    this.log("warn", args);
  }
  info(...args: unknown[]): void {
    this.log("info", args);
  }
  debug(...args: unknown[]): void {
    this.log("debug", args);
  }
  trace(...args: unknown[]): void {
    this.log("trace", args);
  }
  silent(): void {}
  child(bindings: Bindings, opts?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, opts);
  }
  bindings(): Bindings {
    return (this.real as unknown as { bindings(): Bindings }).bindings();
  }
}

/** fastify's childLoggerFactory option. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, opts) as unknown as FastifyBaseLogger;
}
