// The in-process transport facades use: each call runs the service
// implementation through the same interceptor chain a remote caller meets
// (auth, tenancy, metering, metrics), with fresh context values, but without
// encoding messages to protobuf bytes and back and without the per-call linked
// AbortControllers of a Connect handler. Behaviour a caller can see matches the
// remote path: errors arrive as ConnectErrors (anything else is "internal
// error"), the handler's signal aborts when the caller's does (or at the
// deadline), and a stream the caller stops reading after it aborted is closed,
// so every interceptor's and service's cleanup runs.
import { type DescMessage, type DescMethod, type DescMethodStreaming, type DescMethodUnary, type DescService, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { formatKey } from "./context.js";
import { promiseOf } from "./iter.js";
import { create } from "./proto/create.js";
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  createServiceImplSpec,
  createMethodImplSpec,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type StreamRequest,
  type StreamResponse,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
  type ContextValues,
} from "@connectrpc/connect";

type HeaderInit = ConstructorParameters<typeof Headers>[0];
type AnyFn = (req: UnaryRequest | StreamRequest) => Promise<UnaryResponse | StreamResponse>;

const PROTOCOL = "direct";
const URL_BASE = "https://in-process/";

/** Collects the implementations a routes function registers. */
function collect(routes: (router: ConnectRouter) => void): Map<DescMethod, MethodImplSpec> {
  const specs = new Map<DescMethod, MethodImplSpec>();
  const router: ConnectRouter = {
    handlers: [],
    service(service, impl) {
      const s = createServiceImplSpec(service, impl);
      for (const m of Object.values(s.methods)) specs.set(m.method, m);
      return this;
    },
    rpc(method, impl) {
      specs.set(method, createMethodImplSpec(method, impl) as MethodImplSpec);
      return this;
    },
  };
  routes(router);
  return specs;
}

/** What the caller sees of an error: a ConnectError, as a remote handler would send it. */
function toCallerError(err: unknown, signal: AbortSignal): ConnectError {
  if (err instanceof ConnectError) return err;
  if (signal.aborted) return ConnectError.from(signal.reason, Code.Canceled);
  return new ConnectError("internal error", Code.Internal, undefined, undefined, err);
}

/** The handler's signal: the caller's (or a fresh one), plus a deadline when there is a timeout. */
function callSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal; cleanup: () => void } {
  if (timeoutMs === undefined) return { signal: signal ?? new AbortController().signal, cleanup: noCleanup };
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal!.reason);
  const timer = setTimeout(() => ac.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)), Math.max(0, timeoutMs));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: ac.signal,
    cleanup: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Call headers as a Map (a WHATWG Headers object costs microseconds to
 * build, and the core only reads a few names): the Headers methods, names
 * case-insensitive, repeated values joined with ", ".
 */
class MapHeaders {
  private readonly m = new Map<string, string>();
  constructor(init?: HeaderInit) {
    if (!init) return;
    if (Array.isArray(init) || typeof (init as Iterable<unknown>)[Symbol.iterator] === "function") {
      for (const [k, v] of init as Iterable<[string, string]>) this.append(k, v);
    } else for (const k of Object.keys(init)) this.append(k, (init as Record<string, string>)[k]!);
  }
  get(name: string): string | null {
    return this.m.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.m.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.m.set(name.toLowerCase(), String(value));
  }
  append(name: string, value: string): void {
    const k = name.toLowerCase();
    const old = this.m.get(k);
    this.m.set(k, old === undefined ? String(value) : `${old}, ${value}`);
  }
  delete(name: string): void {
    this.m.delete(name.toLowerCase());
  }
  getSetCookie(): string[] {
    const v = this.m.get("set-cookie");
    return v === undefined ? [] : [v];
  }
  forEach(fn: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [k, v] of this.m) fn.call(thisArg, v, k, this as unknown as Headers);
  }
  keys() {
    return this.m.keys();
  }
  values() {
    return this.m.values();
  }
  entries() {
    return this.m.entries();
  }
  [Symbol.iterator]() {
    return this.m.entries();
  }
  get [Symbol.toStringTag]() {
    return "Headers";
  }
}

const requestHeaders = (init: HeaderInit | undefined): Headers => (init instanceof Headers ? init : (new MapHeaders(init) as unknown as Headers));

/** Response headers and trailers of one call, made when a service or interceptor first asks. */
class CallHeaders {
  private h: Headers | undefined;
  private t: Headers | undefined;
  get header(): Headers {
    return (this.h ??= new MapHeaders() as unknown as Headers);
  }
  get trailer(): Headers {
    return (this.t ??= new MapHeaders() as unknown as Headers);
  }
}

/** A registered method: its implementation and the URL its calls report. */
interface Target {
  spec: MethodImplSpec;
  url: string;
}

/** What the innermost step of a call needs that the request does not carry. */
interface Call {
  target: Target;
  timeoutMs: () => number | undefined;
  out: CallHeaders;
}

/** Carries the Call through the interceptors (they may replace the request, not its context values). */
const callKey = createContextKey<Call | undefined>(undefined, { description: "direct transport call" });

const noTimeout = () => undefined;
const noCleanup = () => undefined;

function newCall(target: Target, timeoutMs: number | undefined): Call {
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  return { target, timeoutMs: deadline === undefined ? noTimeout : () => deadline - Date.now(), out: new CallHeaders() };
}

/**
 * The HandlerContext an implementation gets, from the request as the
 * interceptors leave it (a class: its header getters live on the prototype,
 * not as two new closures per call).
 */
class DirectHandlerContext {
  readonly method: DescMethod;
  readonly service: DescService;
  readonly protocolName = PROTOCOL;
  readonly requestMethod = "POST";
  readonly url: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: () => number | undefined;
  readonly requestHeader: Headers;
  readonly values: HandlerContext["values"];
  private readonly out: CallHeaders;
  constructor(c: Call, req: UnaryRequest | StreamRequest) {
    this.method = c.target.spec.method;
    this.service = req.service;
    this.url = c.target.url;
    this.signal = req.signal;
    this.timeoutMs = c.timeoutMs;
    this.requestHeader = req.header;
    this.values = req.contextValues;
    this.out = c.out;
  }
  get responseHeader(): Headers {
    return this.out.header;
  }
  get responseTrailer(): Headers {
    return this.out.trailer;
  }
}

function handlerContext(c: Call, req: UnaryRequest | StreamRequest): HandlerContext {
  return new DirectHandlerContext(c, req);
}

/** Runs the interceptors around `last`, the first interceptor outermost. */
function chain(interceptors: Interceptor[], last: AnyFn): AnyFn {
  let next = last;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next);
  return next;
}

async function* single<T>(value: T): AsyncGenerator<T> {
  yield value;
}

/**
 * A unary answer whose header and trailer are made only when someone reads
 * them (facades read the message only).
 */
class DirectUnaryResponse {
  readonly stream = false;
  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    private readonly out: CallHeaders,
    readonly message: unknown,
  ) {}
  get header(): Headers {
    return this.out.header;
  }
  get trailer(): Headers {
    return this.out.trailer;
  }
}

/** The innermost step of a unary call: the implementation (a promise chain, not an async frame: see promiseOf). */
const invokeUnary: AnyFn = (req) => {
  const c = req.contextValues.get(callKey)!;
  const impl = c.target.spec.impl as (m: unknown, ctx: HandlerContext) => unknown;
  return promiseOf(() => Promise.resolve(impl(req.message, handlerContext(c, req)))).then(
    (out) => new DirectUnaryResponse(req.service, req.method, c.out, create(req.method.output, out as never)) as UnaryResponse,
  );
};

/** The innermost step of a streaming call: the implementation, fed the request stream. */
const invokeStream: AnyFn = async (req) => {
  const c = req.contextValues.get(callKey)!;
  const spec = c.target.spec;
  const ctx = handlerContext(c, req);
  const reqs = req.message as AsyncIterable<unknown>;
  let out: AsyncIterable<unknown>;
  if (spec.kind === "server_streaming") out = spec.impl((await only(reqs)) as never, ctx);
  else if (spec.kind === "bidi_streaming") out = spec.impl(reqs as never, ctx);
  else if (spec.kind === "client_streaming") out = single(await spec.impl(reqs as never, ctx));
  else throw new ConnectError(`${req.method.name} is not a streaming method`, Code.Internal);
  return { stream: true, service: req.service, method: req.method, header: c.out.header, trailer: c.out.trailer, message: out } as StreamResponse;
};

/**
 * A request as the interceptors see it: method, URL, signal, headers, fresh
 * context values and the message. Of the caller's context values only the
 * entry format is taken (the facade that made the call sets it).
 */
function request(
  stream: boolean,
  method: DescMethod,
  target: Target,
  signal: AbortSignal,
  header: HeaderInit | undefined,
  timeoutMs: number | undefined,
  message: unknown,
  callerValues: ContextValues | undefined,
) {
  const contextValues = createContextValues().set(callKey, newCall(target, timeoutMs));
  if (callerValues) contextValues.set(formatKey, callerValues.get(formatKey));
  return {
    stream,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: target.url,
    signal,
    header: requestHeaders(header),
    contextValues,
    message,
  };
}

export interface DirectTransportOptions {
  /** The server-side interceptors, outermost first. */
  interceptors: Interceptor[];
}

/**
 * The direct transport: a Connect Transport, plus `unaryMessage`, a unary call
 * that resolves with the response message (what facades want) in the same
 * promise that maps errors, instead of a second one after it.
 */
export interface DirectTransport extends Transport {
  unaryMessage<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeaderInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<MessageShape<O>>;
}

const asResponse = (res: UnaryResponse): UnaryResponse => res;
const messageOf = (res: UnaryResponse): unknown => res.message;

export function createDirectTransport(routes: (router: ConnectRouter) => void, opts: DirectTransportOptions): DirectTransport {
  const specs = collect(routes);
  const targets = new Map<DescMethod, Target>();
  const targetFor = (method: DescMethod): Target => {
    let t = targets.get(method);
    if (!t) {
      t = { spec: specs.get(method) ?? unimplemented(method), url: URL_BASE + method.parent.typeName + "/" + method.name };
      targets.set(method, t);
    }
    return t;
  };
  const unary = chain(opts.interceptors, invokeUnary);
  const stream = chain(opts.interceptors, invokeStream);

  async function unaryWithDeadline(
    method: DescMethodUnary,
    target: Target,
    callerSignal: AbortSignal | undefined,
    timeoutMs: number,
    header: HeaderInit | undefined,
    input: unknown,
    values: ContextValues | undefined,
  ) {
    const { signal, cleanup } = callSignal(callerSignal, timeoutMs);
    try {
      return await unary(request(false, method, target, signal, header, timeoutMs, create(method.input, input as never), values) as UnaryRequest);
    } catch (err) {
      throw toCallerError(err, signal);
    } finally {
      cleanup();
    }
  }

  /** A unary call's response, or with `pick` what it takes from it, in the one promise that also maps errors. */
  function unaryCall<R>(
    method: DescMethodUnary,
    callerSignal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeaderInit | undefined,
    input: unknown,
    values: ContextValues | undefined,
    pick: (res: UnaryResponse) => R,
  ): Promise<R> {
    const target = targetFor(method);
    if (timeoutMs !== undefined) return (unaryWithDeadline(method, target, callerSignal, timeoutMs, header, input, values) as Promise<UnaryResponse>).then(pick);
    // No deadline to clear: no async frame of its own.
    const signal = callerSignal ?? new AbortController().signal;
    try {
      return (unary(request(false, method, target, signal, header, undefined, create(method.input, input as never), values) as UnaryRequest) as Promise<UnaryResponse>).then(pick, (err: unknown) =>
        Promise.reject(toCallerError(err, signal)),
      );
    } catch (err) {
      return Promise.reject(toCallerError(err, signal));
    }
  }

  const transport: DirectTransport = {
    // Typed by the interfaces (Transport, DirectTransport) rather than spelled out again.
    unary: ((method: DescMethodUnary, callerSignal, timeoutMs, header, input, values) => unaryCall(method, callerSignal, timeoutMs, header, input, values, asResponse)) as Transport["unary"],
    unaryMessage: ((method: DescMethodUnary, callerSignal, timeoutMs, header, input, values) =>
      unaryCall(method, callerSignal, timeoutMs, header, input, values, messageOf)) as DirectTransport["unaryMessage"],

    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      callerSignal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeaderInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      values?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      const target = targetFor(method);
      const { signal, cleanup } = callSignal(callerSignal, timeoutMs);
      let res: StreamResponse;
      try {
        res = (await stream(request(true, method, target, signal, header, timeoutMs, normalized(method.input, input), values) as StreamRequest)) as StreamResponse;
      } catch (err) {
        cleanup();
        throw toCallerError(err, signal);
      }
      return { ...res, message: outputOf(method.output, res.message, signal, cleanup) } as StreamResponse<I, O>;
    },
  };
  return transport;
}

function unimplemented(method: DescMethod): MethodImplSpec {
  const message = `${(method.parent as DescService).typeName}.${method.name} is not implemented`;
  const fail = () => {
    throw new ConnectError(message, Code.Unimplemented);
  };
  return createMethodImplSpec(method as DescMethodUnary, fail as never) as MethodImplSpec;
}

/** The one request message of a server-streaming call. */
async function only<T>(reqs: AsyncIterable<T>): Promise<T> {
  const it = reqs[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new ConnectError("protocol error: missing input message for server-streaming method", Code.Unimplemented);
  const second = await it.next();
  if (!second.done) throw new ConnectError("protocol error: received extra input message for server-streaming method", Code.Unimplemented);
  return first.value;
}

function normalized<D extends DescMessage>(desc: D, input: AsyncIterable<MessageInitShape<D>>): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]() {
      const it = input[Symbol.asyncIterator]();
      return {
        next: () => it.next().then((r) => (r.done ? r : { done: false, value: create(desc, r.value) })),
        return: (v?: unknown) => it.return?.(v) ?? Promise.resolve({ done: true as const, value: undefined }),
      };
    },
  };
}

/**
 * The caller's view of a response stream: messages normalised, errors as
 * ConnectErrors. When the caller's signal aborts, the stream is closed (so the
 * cleanup of every interceptor and of the service runs even if the caller
 * never reads again) and the caller's reads fail with Canceled, as they would
 * from a remote handler.
 */
function outputOf<D extends DescMessage>(desc: D, messages: AsyncIterable<unknown>, signal: AbortSignal, cleanup: () => void): AsyncIterable<MessageInitShape<D>> {
  type R = IteratorResult<MessageInitShape<D>>;
  return {
    [Symbol.asyncIterator]() {
      const it = messages[Symbol.asyncIterator]();
      let finished = false;
      let aborted = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        signal.removeEventListener("abort", onAbort);
        cleanup();
      };
      const canceled = () => ConnectError.from(signal.reason, Code.Canceled);
      const onAbort = () => {
        aborted = true;
        finish();
        void it.return?.(undefined).catch(() => undefined);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      return {
        next: (): Promise<R> => {
          if (aborted) return Promise.reject(canceled());
          return it.next().then(
            (r) => {
              if (r.done) {
                finish();
                return r as R;
              }
              if (aborted) throw canceled();
              return { done: false, value: create(desc, r.value as MessageInitShape<D>) } as R;
            },
            (err: unknown) => {
              finish();
              throw toCallerError(err, signal);
            },
          );
        },
        return: (v?: unknown): Promise<R> => {
          finish();
          return (it.return?.(v) ?? Promise.resolve({ done: true, value: undefined })) as Promise<R>;
        },
      };
    },
  };
}
