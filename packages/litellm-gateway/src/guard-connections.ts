import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * Bounds on the gateway's client connections. Each open connection is a descriptor of the runner's own process, and
 * anything inside a cell that can reach the socket can open them; unbounded, ~20 000 half-open connections left the
 * runner unable to spawn the next sandbox.
 */
export interface ConnectionLimits {
  /** Open connections on the listening socket; at the cap the oldest unauthenticated one makes room, else the new one is closed. */
  readonly maxConnections: number;
  /** Open connections that presented one cell's token; a request that would exceed it gets 429 and its connection closes. */
  readonly maxCellConnections: number;
  /** A connection that has not presented a valid cell token this long after it opened is closed. */
  readonly authWindowMs: number;
  /** An unauthenticated connection younger than this is never evicted, so a client that connects and sends at once is served. */
  readonly evictAfterMs: number;
  /** Node's headersTimeout: the headers of a request on an open connection must arrive within this. */
  readonly headersTimeoutMs: number;
  /** Node's requestTimeout: a whole request (headers and body) must arrive within this; the response is not bounded by it. */
  readonly requestTimeoutMs: number;
}

/** Defaults: room for every worker's CLI and its subagents, a tight window for strangers. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1024,
  maxCellConnections: 32,
  authWindowMs: 1_500,
  evictAfterMs: 100,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
};

/** What the guard did so far; every refusal is counted, so a flood is observable after the fact. */
export interface ConnectionStats {
  /** Connections open right now, and the most that were ever open at once. */
  readonly open: number;
  readonly peakOpen: number;
  readonly accepted: number;
  /** Closed on arrival: the socket was at its cap and no unauthenticated connection was old enough to evict. */
  readonly refusedAtCapacity: number;
  /** Unauthenticated connections closed to admit a newer one at the cap. */
  readonly evictedUnauthenticated: number;
  /** Closed because no valid cell token arrived within the auth window (half-open, idle or slow clients). */
  readonly closedUnauthenticated: number;
  /** Requests refused (429) because their cell already held its cap of connections. */
  readonly refusedCellCapacity: number;
  /** Idle connections of a revoked cell closed at revocation. */
  readonly closedRevoked: number;
}

interface Tracked {
  readonly openedAt: number;
  cellId: string | null;
  inflight: number;
  revoked: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** The result of attributing a request's connection to the cell whose token it presented. */
export type AdmitOutcome = "admitted" | "cell-at-capacity" | "other-cell";

/** Connection bookkeeping of one gateway server. */
export interface ConnectionGuard {
  /** Attributes `socket` to `cellId` (the request presented its valid token). */
  admit(socket: Socket, cellId: string): AdmitOutcome;
  /** Closes the revoked cell's idle connections now and its busy ones when their request ends. */
  closeCell(cellId: string): void;
  stats(): ConnectionStats;
  /** Clears every timer (the server is closing its connections itself). */
  dispose(): void;
}

/**
 * Applies `limits` to `server`: counts and bounds its connections, closes those that never authenticate, and sets
 * Node's header/request timeouts. Trusts nothing a client sends; only `admit` (called after the gateway resolved a
 * real token) marks a connection as belonging to a cell.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  const tracked = new Map<Socket, Tracked>();
  const counts = { peakOpen: 0, accepted: 0, refusedAtCapacity: 0, evictedUnauthenticated: 0, closedUnauthenticated: 0, refusedCellCapacity: 0, closedRevoked: 0 };

  const cellConnections = (cellId: string): number => {
    let n = 0;
    for (const entry of tracked.values()) if (entry.cellId === cellId) n += 1;
    return n;
  };

  // Registered after http.Server's own listener, so the parser is already attached to the socket destroyed here.
  server.on("connection", (socket: Socket) => {
    const now = Date.now();
    if (tracked.size >= limits.maxConnections) {
      let victim: Socket | null = null;
      // Map order is arrival order: the first unauthenticated entry is the oldest.
      for (const [candidate, entry] of tracked) {
        if (entry.cellId !== null) continue;
        if (now - entry.openedAt >= limits.evictAfterMs) victim = candidate;
        break;
      }
      if (victim === null) {
        counts.refusedAtCapacity += 1;
        socket.destroy();
        return;
      }
      counts.evictedUnauthenticated += 1;
      forget(victim);
      victim.destroy();
    }
    counts.accepted += 1;
    const entry: Tracked = { openedAt: now, cellId: null, inflight: 0, revoked: false, timer: undefined };
    entry.timer = setTimeout(() => {
      if (entry.cellId !== null || !tracked.has(socket)) return;
      counts.closedUnauthenticated += 1;
      socket.destroy();
    }, limits.authWindowMs);
    entry.timer.unref();
    tracked.set(socket, entry);
    counts.peakOpen = Math.max(counts.peakOpen, tracked.size);
    socket.once("close", () => forget(socket));
  });

  server.on("request", (req, res) => {
    const entry = tracked.get(req.socket);
    if (entry === undefined) return;
    entry.inflight += 1;
    res.once("close", () => {
      entry.inflight -= 1;
      if (entry.revoked && entry.inflight === 0) req.socket.destroy();
    });
  });

  function forget(socket: Socket): void {
    const entry = tracked.get(socket);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    tracked.delete(socket);
  }

  return {
    admit(socket, cellId) {
      const entry = tracked.get(socket);
      if (entry === undefined) return "admitted";
      if (entry.cellId === cellId) return "admitted";
      // One connection carries one cell: a second cell's token on it is an identity conflict, not a handover.
      if (entry.cellId !== null) return "other-cell";
      if (cellConnections(cellId) >= limits.maxCellConnections) {
        counts.refusedCellCapacity += 1;
        return "cell-at-capacity";
      }
      entry.cellId = cellId;
      clearTimeout(entry.timer);
      return "admitted";
    },
    closeCell(cellId) {
      for (const [socket, entry] of tracked) {
        if (entry.cellId !== cellId) continue;
        entry.revoked = true;
        if (entry.inflight === 0) {
          counts.closedRevoked += 1;
          socket.destroy();
        }
      }
    },
    stats: () => ({ open: tracked.size, ...counts }),
    dispose() {
      for (const entry of tracked.values()) clearTimeout(entry.timer);
    },
  };
}
