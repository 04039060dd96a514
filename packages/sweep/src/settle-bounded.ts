/**
 * Runs `step` over `items` with at most `limit` in flight, in order of `items`, and starts none after a failure (every
 * earlier item has started by then, so the first failure in item order is still among them); resolves once every
 * started step has settled, with the errors of the failed ones in the order of their items (none: all succeeded).
 */
export async function settleBounded<T>(items: readonly T[], limit: number, step: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const failures = new Map<number, unknown>();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && failures.size === 0) {
      const index = next;
      next += 1;
      try {
        await step(items[index] as T);
      } catch (error) {
        failures.set(index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return [...failures].sort(([a], [b]) => a - b).map(([, error]) => error);
}
