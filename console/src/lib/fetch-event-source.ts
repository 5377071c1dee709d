// An EventSource built on fetch, for tRPC's httpSubscriptionLink: the browser's
// EventSource cannot send an Authorization header, and the console never puts
// its key in a URL. Same contract as EventSource: readyState, named events,
// automatic reconnection after a dropped stream (with Last-Event-ID), and a
// failed connection (an HTTP error, not an event stream) closes it for good.
import { createParser } from "eventsource-parser";

export interface FetchEventSourceInit {
  /** Headers of every (re)connection, e.g. { authorization: "Bearer ..." }. */
  headers?: Record<string, string>;
  /** Wait before reconnecting, unless the server sends retry: (default 1000 ms). */
  retryMs?: number;
  fetch?: typeof fetch;
}

export interface SourceEvent {
  type: string;
  data?: string;
  lastEventId?: string;
  /** HTTP status of a failed connection. */
  status?: number;
}

type Listener = (event: SourceEvent) => void;

export class FetchEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSED = 2;
  readonly withCredentials = false;
  readyState = 0;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly abort = new AbortController();
  private lastEventId = "";
  private retryMs: number;

  constructor(
    readonly url: string,
    private readonly init: FetchEventSourceInit = {},
  ) {
    this.retryMs = init.retryMs ?? 1000;
    void this.run();
  }

  addEventListener(type: string, fn: Listener): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn);
  }

  removeEventListener(type: string, fn: Listener): void {
    this.listeners.get(type)?.delete(fn);
  }

  close(): void {
    this.readyState = this.CLOSED;
    this.abort.abort();
  }

  private dispatch(event: SourceEvent): void {
    for (const fn of [...(this.listeners.get(event.type) ?? [])]) fn(event);
  }

  private async run(): Promise<void> {
    const fetchImpl = this.init.fetch ?? globalThis.fetch.bind(globalThis);
    while (this.readyState !== this.CLOSED) {
      try {
        const res = await fetchImpl(this.url, {
          headers: { accept: "text/event-stream", ...this.init.headers, ...(this.lastEventId ? { "last-event-id": this.lastEventId } : {}) },
          signal: this.abort.signal,
        });
        if (!res.ok || !res.body || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
          await res.body?.cancel().catch(() => undefined);
          if (this.readyState === this.CLOSED) return;
          this.readyState = this.CLOSED;
          this.dispatch({ type: "error", status: res.status });
          return;
        }
        this.readyState = this.OPEN;
        this.dispatch({ type: "open" });
        const parser = createParser({
          onEvent: (m) => {
            if (m.id !== undefined) this.lastEventId = m.id;
            if (this.readyState !== this.CLOSED) this.dispatch({ type: m.event || "message", data: m.data, lastEventId: this.lastEventId });
          },
          onRetry: (ms) => (this.retryMs = ms),
        });
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // A network error or an abort: reconnect below unless closed.
      }
      if (this.readyState === this.CLOSED) return;
      this.readyState = this.CONNECTING;
      this.dispatch({ type: "error" });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.retryMs);
        this.abort.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
