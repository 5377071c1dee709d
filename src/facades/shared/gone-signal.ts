// An AbortSignal look-alike for "the client went away", one per request.
//
// Node 20 builds every AbortSignal with ObjectSetPrototypeOf on a fresh
// EventTarget, so no two signals share a hidden class: each one allocates its
// own map and descriptors, which costs CPU and old-generation garbage on
// every request; instances of this class share one. This class has
// the part of the AbortSignal surface the gateway and the libraries it hands
// signals to use (aborted, reason, throwIfAborted, onabort, add/removeEventListener
// with `once` and handleEvent objects, dispatchEvent), and Node's own
// validators accept it (they check for an `aborted` property). It is not
// accepted by AbortSignal.any() or fetch(), which need a real one: callers
// that combine signals (tRPC) use a real AbortController instead.

type Handler = ((this: unknown, ev: Event) => unknown) | { handleEvent(ev: Event): unknown };
interface ListenerOptions {
  once?: boolean;
  /** Removes the listener when this signal aborts (as EventTarget does). */
  signal?: AbortSignal;
}
interface Entry {
  handler: Handler;
  once: boolean;
}

export class GoneSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: unknown, ev: Event) => unknown) | null = null;
  private entries: Entry[] | undefined = undefined;

  addEventListener(type: string, handler: Handler | null | undefined, options?: boolean | ListenerOptions): void {
    // An abort signal fires once; a listener added after that never runs (as with AbortSignal).
    if (type !== "abort" || !handler || this.aborted) return;
    const list = (this.entries ??= []);
    for (const e of list) if (e.handler === handler) return;
    const once = typeof options === "object" && options !== null && options.once === true;
    const signal = typeof options === "object" && options !== null ? options.signal : undefined;
    if (signal?.aborted) return;
    list.push({ handler, once });
    signal?.addEventListener("abort", () => this.removeEventListener(type, handler), { once: true });
  }

  removeEventListener(type: string, handler: Handler | null | undefined): void {
    const list = this.entries;
    if (type !== "abort" || !handler || !list) return;
    const i = list.findIndex((e) => e.handler === handler);
    if (i >= 0) list.splice(i, 1);
  }

  dispatchEvent(ev: Event): boolean {
    if (ev.type !== "abort") return true;
    if (this.onabort) this.call(this.onabort, ev);
    const list = this.entries;
    if (!list) return true;
    for (const e of list.slice()) {
      if (e.once) this.removeEventListener("abort", e.handler);
      this.call(e.handler, ev);
    }
    return true;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Marks the signal aborted and runs its listeners once. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.dispatchEvent(new Event("abort"));
    // It cannot fire again, so nothing needs its listeners any more.
    this.entries = undefined;
  }

  private call(handler: Handler, ev: Event): void {
    try {
      if (typeof handler === "function") handler.call(this, ev);
      else handler.handleEvent(ev);
    } catch (err) {
      // As with EventTarget: a throwing listener does not stop the others; the error is reported, not thrown here.
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
