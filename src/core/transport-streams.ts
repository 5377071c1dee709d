// Watching a response stream from an interceptor (metrics, rate-limit slots,
// budgets) without an async generator per layer: a generator costs several
// promises per message and layer, this wrapper one `then`. The end hook runs
// exactly once, whether the stream completes, fails, or its reader stops
// early, with the same ordering a generator's `finally` would have. And
// reading a server-streaming call's one request message before passing it on.

/** How a watched stream ended. */
export interface StreamEnd {
  /** The stream delivered its last message. */
  completed: boolean;
  /** What it failed with (undefined when it completed or its reader stopped early). */
  error?: unknown;
  /** Whether it failed. */
  failed: boolean;
}

export interface StreamWatch<T> {
  /** Each message before it is passed on; throwing fails the stream. */
  each?(message: T): void;
  /** Once at the end; what it throws replaces the stream's own outcome, as from a `finally`. */
  end(how: StreamEnd): void | Promise<void>;
}

export function watchStream<T>(src: AsyncIterable<T>, watch: StreamWatch<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const it = src[Symbol.asyncIterator]();
      let ended = false;
      const end = (how: StreamEnd): void | Promise<void> => {
        if (ended) return;
        ended = true;
        return watch.end(how);
      };
      const fail = async (error: unknown): Promise<never> => {
        await end({ completed: false, failed: true, error });
        throw error;
      };
      const onResult = (r: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> => {
        if (r.done) {
          const p = end({ completed: true, failed: false });
          return p ? p.then(() => r) : r;
        }
        if (watch.each) {
          try {
            watch.each(r.value);
          } catch (err) {
            void it.return?.().catch(() => undefined);
            return fail(err);
          }
        }
        return r;
      };
      return {
        next: () => {
          if (ended) return Promise.resolve({ done: true, value: undefined });
          return it.next().then(onResult, fail);
        },
        return: async (value?: unknown) => {
          if (ended) return { done: true, value: value as T };
          try {
            await it.return?.();
          } catch (err) {
            return fail(err);
          }
          await end({ completed: false, failed: false });
          return { done: true, value: value as T };
        },
      };
    },
  };
}

/**
 * The first message of a stream, and a stream that yields it and everything
 * after it. A plain iterator, not an async generator: a generator here kept
 * every stream's request objects (its ChatInput, the call's interceptor state)
 * alive into the old generation, and under streaming load the full collections
 * that followed set the p99.
 */
export async function peekFirst<T>(messages: AsyncIterable<T>): Promise<{ first: T | undefined; rest: AsyncIterable<T> }> {
  const it = messages[Symbol.asyncIterator]();
  const head = await it.next();
  let sent = head.done === true;
  const rest: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (sent) return it.next();
        sent = true;
        return Promise.resolve(head);
      },
      return: (v?: unknown) => it.return?.(v) ?? Promise.resolve({ done: true as const, value: undefined }),
    }),
  };
  return { first: head.done ? undefined : head.value, rest };
}
