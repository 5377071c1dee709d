// Async iteration helpers for streams passed from layer to layer: each saves
// the promise and resumption per item that an async generator relaying the
// items would cost.

/** The one "done" result the helpers hand out. */
export const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * An async iterable over a source that `open` makes on the first `next()` (a
 * request sent and its answer checked). From then on each `next()` is the
 * source's own: an async generator that awaited the opening and then passed
 * the source's items on would cost a promise and a resumption per item.
 * `return()` before the opening resolves done without opening; during it, it
 * waits and closes the source. An opening that fails rejects the `next()`
 * that started it, and later calls are done.
 */
export function openOnFirstNext<T>(open: () => Promise<AsyncIterator<T>>): AsyncIterableIterator<T> {
  let src: AsyncIterator<T> | undefined;
  let opening: Promise<AsyncIterator<T>> | undefined;
  let finished = false;
  const closeSource = (s: AsyncIterator<T>): Promise<IteratorResult<T>> => (s.return ? s.return() : Promise.resolve(DONE));
  const it: AsyncIterableIterator<T> = {
    next(): Promise<IteratorResult<T>> {
      if (src) return src.next();
      if (finished) return Promise.resolve(DONE);
      opening ??= open().then(
        (s) => (src = s),
        (err: unknown) => {
          finished = true;
          throw err;
        },
      );
      return opening.then((s) => s.next());
    },
    return(): Promise<IteratorResult<T>> {
      finished = true;
      if (src) return closeSource(src);
      if (!opening) return Promise.resolve(DONE);
      return opening.then(closeSource, () => DONE);
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/** The items of an array as an async iterator (a whole answer replayed where a stream was asked for). */
export function fromItems<T>(items: readonly T[]): AsyncIterator<T> {
  let i = 0;
  return {
    next: () => Promise.resolve(i < items.length ? { done: false, value: items[i++]! } : DONE),
    return: () => {
      i = items.length;
      return Promise.resolve(DONE);
    },
  };
}

/**
 * What `fn` returns, with a synchronous throw turned into a rejection: an
 * async function's contract, for a step that is a promise chain rather than
 * an async frame (an async function awaiting one promise makes two promises
 * and a turn more than the chain does).
 */
export function promiseOf<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err);
  }
}
