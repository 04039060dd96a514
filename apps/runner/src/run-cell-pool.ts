/** How a pool ended: the values of the items that finished, and the first item that threw (null when none did). */
export interface PoolOutcome<T> {
  readonly results: readonly T[];
  readonly failure: { readonly index: number; readonly error: unknown } | null;
}

/**
 * Runs `items` through `run`, at most `workers` at once, in order. An item that throws stops new items from starting
 * but never abandons the ones still running: the pool settles only after every started item has, so whatever they
 * share (the gateway, the work dir) outlives them. Once `signal` aborts no new item starts. Never rejects.
 */
export async function runCellPool<I, T>(items: readonly I[], workers: number, signal: AbortSignal, run: (item: I, index: number) => Promise<T>): Promise<PoolOutcome<T>> {
  const results: T[] = [];
  let failure: PoolOutcome<T>["failure"] = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!signal.aborted && failure === null) {
      const index = next;
      next += 1;
      if (index >= items.length) return;
      try {
        results.push(await run(items[index] as I, index));
      } catch (error) {
        failure ??= { index, error };
      }
    }
  };
  // allSettled, not all: the first rejection must not return while other workers still hold cells.
  await Promise.allSettled(Array.from({ length: Math.max(0, Math.min(workers, items.length)) }, () => worker()));
  return { results, failure };
}
