// The one path every core call takes, in named steps: authenticate (the
// key into a principal), admit (scopes, rate limit, budget reservation:
// tenancy/admission.ts), run the service, settle (slot back, charge or
// refund, the one usage record: tenancy/settlement.ts). Errors reach the
// caller as ConnectErrors; anything else is "internal error". A stream
// settles once, when it ends, fails, is stopped by its reader or its caller
// goes away (then its source is closed at once, whether or not it is read
// again).
import type { DescMessage, DescMethod, DescMethodServerStreaming, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../auth/authenticator.js";
import { asConnectError, unauthenticated } from "../errors.js";
import { create } from "../proto/create.js";
import type { Admission, Ticket } from "../tenancy/admission.js";
import type { Outcome, Settlement } from "../tenancy/settlement.js";
import type { Call, CallInit, Principal } from "./call.js";

type UnaryImpl = (req: never, call: never) => unknown;
type StreamImpl = (req: never, call: never) => AsyncIterable<unknown>;

export interface PipelineDeps {
  auth: Authenticator;
  admission: Admission;
  settlement: Settlement;
  /** Once per call, when it ends: its method, its error (undefined: ok) and its duration in seconds. */
  observe?: ((method: DescMethod, error: ConnectError | undefined, seconds: number) => void) | undefined;
  now?: () => number;
}

export interface Pipeline {
  unary<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, impl: UnaryImpl, req: MessageInitShape<I>, init: CallInit): Promise<MessageShape<O>>;
  stream<I extends DescMessage, O extends DescMessage>(method: DescMethodServerStreaming<I, O>, impl: StreamImpl, req: MessageInitShape<I>, init: CallInit): AsyncIterable<MessageShape<O>>;
}

const callOf = (init: CallInit, principal: Principal): Call => ({ principal, format: init.format, requestId: init.requestId, urlBase: init.urlBase, signal: init.signal });

/** Step 1: the principal behind the call's key (synchronous when the key cache knows it). */
export function authenticate(auth: Authenticator, init: CallInit): Call | Promise<Call> {
  if (init.principal) return callOf(init, init.principal);
  const token = init.apiKey;
  if (!token) throw unauthenticated("missing API key");
  const known = auth.cached?.(token);
  if (known !== undefined) {
    if (!known) throw unauthenticated("invalid API key");
    return callOf(init, known);
  }
  return auth.verify(token).then((p) => {
    if (!p) throw unauthenticated("invalid API key");
    return callOf(init, p);
  });
}

/** What the caller sees of an error. */
function callerError(err: unknown, signal: AbortSignal): ConnectError {
  if (err instanceof ConnectError) return err;
  if (signal.aborted) return ConnectError.from(signal.reason, Code.Canceled);
  return asConnectError(err);
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

export function createPipeline(deps: PipelineDeps): Pipeline {
  const now = deps.now ?? Date.now;

  /** Step 2: admission; a gate's refusal is recorded. */
  function admit(method: DescMethod, req: unknown, call: Call, started: number): Ticket | Promise<Ticket> {
    const refused = (err: unknown): never => {
      const e = callerError(err, call.signal);
      deps.settlement.refused(method, req, call, e, started);
      throw e;
    };
    try {
      const t = deps.admission.admit(method, req, call, started);
      return t instanceof Promise ? t.catch(refused) : t;
    } catch (err) {
      return refused(err);
    }
  }

  /** Steps 3 and 4: the service, then settlement (waited for when it writes). */
  function run<O extends DescMessage>(method: DescMethodUnary, impl: UnaryImpl, message: unknown, call: Call, ticket: Ticket): Promise<MessageShape<O>> {
    let out: unknown;
    try {
      out = impl(message as never, call as never);
    } catch (err) {
      out = Promise.reject(err);
    }
    return Promise.resolve(out).then(
      (value) => {
        const res = create(method.output, value as never) as MessageShape<O>;
        const settling = deps.settlement.settle(ticket, { res });
        return settling ? settling.then(() => res) : res;
      },
      (err: unknown) => {
        const e = callerError(err, call.signal);
        const settling = deps.settlement.settle(ticket, { res: undefined, error: e, canceled: call.signal.aborted });
        return settling ? settling.then(() => Promise.reject(e)) : Promise.reject(e);
      },
    );
  }

  // Written as promise chains, not async functions: a call whose key is cached and that needs no slot or
  // reservation runs its steps without an await of its own.
  function unary<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, impl: UnaryImpl, req: MessageInitShape<I>, init: CallInit): Promise<MessageShape<O>> {
    const t0 = performance.now();
    const started = now();
    const steps = (call: Call): Promise<MessageShape<O>> => {
      const message = create(method.input, req);
      const ticket = admit(method, message, call, started);
      return ticket instanceof Promise ? ticket.then((t) => run<O>(method, impl, message, call, t)) : run<O>(method, impl, message, call, ticket);
    };
    let pending: Promise<MessageShape<O>>;
    try {
      const call = authenticate(deps.auth, init);
      pending = call instanceof Promise ? call.then(steps) : steps(call);
    } catch (err) {
      pending = Promise.reject(err);
    }
    if (!deps.observe) return pending.catch((err: unknown) => Promise.reject(callerError(err, init.signal)));
    return pending.then(
      (res) => {
        deps.observe!(method, undefined, seconds(t0));
        return res;
      },
      (err: unknown) => {
        const e = callerError(err, init.signal);
        deps.observe!(method, e, seconds(t0));
        return Promise.reject(e);
      },
    );
  }

  function stream<I extends DescMessage, O extends DescMessage>(method: DescMethodServerStreaming<I, O>, impl: StreamImpl, req: MessageInitShape<I>, init: CallInit): AsyncIterable<MessageShape<O>> {
    return { [Symbol.asyncIterator]: () => new CallStream<O>(method, impl, req, init) };
  }

  /** A streamed call: opened (authenticated, admitted, started) on the first next(); settled once at its end. */
  class CallStream<O extends DescMessage> implements AsyncIterator<MessageShape<O>> {
    private src: AsyncIterator<unknown> | undefined;
    private opening: Promise<AsyncIterator<unknown>> | undefined;
    private ticket: Ticket | undefined;
    private ended = false;
    private canceled = false;
    private readonly t0 = performance.now();
    private readonly started = now();

    constructor(
      private readonly method: DescMethodServerStreaming,
      private readonly impl: StreamImpl,
      private readonly req: unknown,
      private readonly init: CallInit,
    ) {}

    next(): Promise<IteratorResult<MessageShape<O>>> {
      if (this.ended) return this.canceled ? Promise.reject(this.canceledError()) : Promise.resolve({ done: true, value: undefined });
      if (this.src) return this.src.next().then(this.onResult, this.onError);
      this.opening ??= this.open();
      return this.opening.then((s) => s.next()).then(this.onResult, this.onError);
    }

    async return(): Promise<IteratorResult<MessageShape<O>>> {
      if (!this.ended) {
        const src = this.src ?? (this.opening ? await this.opening.catch(() => undefined) : undefined);
        if (src?.return) await src.return().catch(() => undefined);
        await this.finish({ canceled: true });
      }
      return { done: true, value: undefined };
    }

    private async open(): Promise<AsyncIterator<unknown>> {
      const call = await authenticate(deps.auth, this.init);
      const message = create(this.method.input, this.req as never);
      const ticket = admit(this.method, message, call, this.started);
      this.ticket = ticket instanceof Promise ? await ticket : ticket;
      if (call.signal.aborted) throw ConnectError.from(call.signal.reason, Code.Canceled);
      call.signal.addEventListener("abort", this.onAbort, { once: true });
      return (this.src = this.impl(message as never, call as never)[Symbol.asyncIterator]());
    }

    private readonly onResult = (r: IteratorResult<unknown>): IteratorResult<MessageShape<O>> | Promise<IteratorResult<MessageShape<O>>> => {
      if (this.ended) {
        if (this.canceled) throw this.canceledError();
        return { done: true, value: undefined };
      }
      if (r.done) return this.finish({ completed: true }).then(() => ({ done: true, value: undefined }));
      const m = create(this.method.output, r.value as never) as MessageShape<O>;
      this.ticket?.tally?.each(m);
      return { done: false, value: m };
    };

    private readonly onError = (err: unknown): Promise<never> => {
      const e = callerError(err, this.init.signal);
      if (this.ended) return Promise.reject(this.canceled ? this.canceledError() : e);
      return this.finish({ error: e, canceled: this.init.signal.aborted }).then(() => Promise.reject(e));
    };

    private readonly onAbort = () => {
      if (this.ended) return;
      void this.finish({ canceled: true });
      void this.src?.return?.().catch(() => undefined);
    };

    private canceledError(): ConnectError {
      return ConnectError.from(this.init.signal.reason ?? new Error("the call was canceled"), Code.Canceled);
    }

    /** Settles the call (once) and reports it. */
    private async finish(how: { completed?: boolean; error?: ConnectError; canceled?: boolean }): Promise<void> {
      if (this.ended) return;
      this.ended = true;
      this.canceled = how.canceled === true;
      this.init.signal.removeEventListener("abort", this.onAbort);
      try {
        const t = this.ticket;
        if (t) {
          const outcome: Outcome = { res: t.tally?.result(how.completed === true), error: how.error, canceled: how.canceled };
          await deps.settlement.settle(t, outcome);
        }
      } finally {
        deps.observe?.(this.method, how.error ?? (how.canceled ? this.canceledError() : undefined), seconds(this.t0));
      }
    }
  }

  return { unary, stream };
}
