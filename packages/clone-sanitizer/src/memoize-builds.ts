/** A keyed memo of one build per key: concurrent callers share the in-flight promise, failures stay memoised. */
export interface BuildMemo<V> {
  /** The one build for `key`, starting `build` only if no build for that key was ever attempted. */
  obtain(key: string, build: () => Promise<V>): Promise<V>;
  /** Settled and pending builds, for disposal. */
  settled(): Promise<PromiseSettledResult<V>[]>;
  readonly size: number;
}

/** Create a BuildMemo; it never retries a key (no retry storm after an infrastructure error). */
export function createBuildMemo<V>(): BuildMemo<V> {
  const builds = new Map<string, Promise<V>>();
  return {
    obtain(key, build) {
      const existing = builds.get(key);
      if (existing !== undefined) return existing;
      // Wrapping in an async thunk turns a synchronous throw into a memoised rejection too.
      const started = (async () => build())();
      builds.set(key, started);
      return started;
    },
    settled: () => Promise.allSettled([...builds.values()]),
    get size() {
      return builds.size;
    },
  };
}
