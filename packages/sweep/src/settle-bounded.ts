/**
 * Runs `step` over `items` with at most `limit` in flight, in order of `items`, and starts none after a failure (every
 * earlier item has started by then, so the first failure in item order is still among them); resolves once every
 * started step has settled, with the errors of the failed ones in the order of their items (none: all succeeded).
 */
export async function settleBounded<T>(items: readonly T[], limit: number, step: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const errors: (unknown | undefined)[] = items.map(() => undefined);
  const failed: boolean[] = items.map(() => false);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed.includes(true)) {
      const index = next;
      next += 1;
      try {
        await step(items[index] as T);
      } catch (error) {
        errors[index] = error;
        failed[index] = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return errors.filter((_, index) => failed[index]);
}
