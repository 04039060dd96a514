/** How a pool ended: the values of the items that finished, and the first item that threw (null when none did). */
export interface PoolOutcome<T> {
  readonly results: readonly T[];
  readonly failure: { readonly index: number; readonly error: unknown } | null;
}

/** Knobs of {@link runCellPool}. */
export interface PoolOptions {
  /**
   * How far ahead of the oldest unfinished item a new item may start (reference §5.7's packed window): item `i` starts
   * only once every item before `i − window + 1` has finished, so rows held for in-order commit stay bounded. Default:
   * unbounded.
   */
  readonly window?: number;
  /**
   * Asked before item `index` starts and again after every item finishes; false holds it back (e.g. while a trip of the
   * outage breaker could still land far enough behind it). When nothing runs and it allows nothing, the oldest
   * unfinished item starts anyway (every item before it has finished), so the pool cannot stall.
   */
  readonly mayStart?: (index: number) => boolean;
  /**
   * Among the items the window and `mayStart` allow, the one with the highest priority starts first (ties: the lower
   * index). Starting the longest items first keeps a long one from running alone at the end. Default: index order.
   */
  readonly priority?: (index: number) => number;
}

/**
 * Runs `items` through `run`, at most `workers` at once, starting them in index (or priority) order across the whole list
 * (one packed pool, no per-task waves), never more than `window` ahead of the oldest unfinished one. An item that throws stops new items
 * from starting but never abandons the ones still running: the pool settles only after every started item has, so
 * whatever they share (the gateway, the work dir) outlives them. Once `signal` aborts no new item starts. Never rejects.
 */
export async function runCellPool<I, T>(items: readonly I[], workers: number, signal: AbortSignal, run: (item: I, index: number) => Promise<T>, options: PoolOptions = {}): Promise<PoolOutcome<T>> {
  const results: T[] = [];
  let failure: PoolOutcome<T>["failure"] = null;
  const window = Math.max(1, options.window ?? Number.POSITIVE_INFINITY);
  const finished = new Set<number>();
  // The oldest unfinished index: the in-order fold can commit everything before it.
  let fold = 0;
  let wake: (() => void) | null = null;
  let woken = new Promise<void>((resolve) => (wake = resolve));
  const notify = (): void => {
    const release = wake;
    woken = new Promise<void>((resolve) => (wake = resolve));
    release?.();
  };
  const onAbort = (): void => notify();
  signal.addEventListener("abort", onAbort);
  const started = new Set<number>();
  let active = 0;
  const priority = options.priority ?? (() => 0);
  // The item to start now: unstarted, inside the window, allowed by mayStart, highest priority first; -1 when none may
  // start yet. With nothing running the fallback is the oldest unfinished item, never a later one: only it has every
  // predecessor's row known, which is what keeps mayStart's promise when priority reorders the starts.
  const pick = (): number => {
    let best = -1;
    let bestPriority = Number.NEGATIVE_INFINITY;
    for (let index = fold; index < Math.min(items.length, fold + window); index += 1) {
      if (started.has(index)) continue;
      if (options.mayStart !== undefined && !options.mayStart(index)) continue;
      const rank = priority(index);
      if (rank > bestPriority) [best, bestPriority] = [index, rank];
    }
    return best === -1 && active === 0 && fold < items.length && !started.has(fold) ? fold : best;
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      // Wait while no unstarted item may start yet; an abort or a failure wakes the waiters too.
      let index = -1;
      while (!signal.aborted && failure === null && started.size < items.length && (index = pick()) === -1) await woken;
      if (signal.aborted || failure !== null || index === -1) return;
      started.add(index);
      active += 1;
      try {
        results.push(await run(items[index] as I, index));
      } catch (error) {
        failure ??= { index, error };
      } finally {
        active -= 1;
        finished.add(index);
        while (finished.has(fold)) fold += 1;
        notify();
      }
    }
  };
  try {
    // allSettled, not all: the first rejection must not return while other workers still hold cells.
    await Promise.allSettled(Array.from({ length: Math.max(0, Math.min(workers, items.length)) }, () => worker()));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  return { results, failure };
}

/** Commits values in index order while they arrive in any order; see {@link createInOrderCommitter}. */
export interface InOrderCommitter<T> {
  /** Records the value of item `index` and commits every value now contiguous with the ones committed before. */
  offer(index: number, value: T): Promise<void>;
  /** Commits what is still held, in index order, past the gaps of items that never produced a value (threw, never started). */
  drain(): Promise<void>;
}

/**
 * Holds finished values until every earlier index has finished, so a log written through `commit` stays in canonical
 * (submission) order whatever order the workers finish in. Commits run one at a time; a value offered twice is refused.
 */
export function createInOrderCommitter<T>(commit: (value: T, index: number) => Promise<void>): InOrderCommitter<T> {
  const held = new Map<number, T>();
  let next = 0;
  // One chain: commits never interleave, even when two offers land in the same tick.
  let chain: Promise<void> = Promise.resolve();
  const flush = async (all: boolean): Promise<void> => {
    for (;;) {
      if (!held.has(next)) {
        if (!all || held.size === 0) return;
        next = Math.min(...held.keys());
      }
      const value = held.get(next) as T;
      held.delete(next);
      await commit(value, next);
      next += 1;
    }
  };
  const enqueue = (all: boolean): Promise<void> => {
    chain = chain.then(() => flush(all));
    return chain;
  };
  return {
    offer(index, value) {
      if (index < next || held.has(index)) return Promise.reject(new RangeError(`item ${index} was already committed or offered`));
      held.set(index, value);
      return enqueue(false);
    },
    drain() {
      return enqueue(true);
    },
  };
}
