import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { answer, apiHeaders, corrupt, type Route, routeOf } from "./fakeNode/answer.js";
import {
  createFakeChain,
  type FakeChain,
  type FakeChainOptions,
  txnCount,
} from "./fakeNode/chain.js";
import { type Fault, type FaultKind, STORM_FAULTS } from "./fakeNode/faults.js";
import { streamHugeBody } from "./fakeNode/hostile.js";

export type { Route } from "./fakeNode/answer.js";
export type { BlockShape, FakeBlock, FakeChain, FakeChainOptions } from "./fakeNode/chain.js";
export type { Fault, FaultKind } from "./fakeNode/faults.js";
export { QUICK_FAULTS } from "./fakeNode/faults.js";

/** One request the fake node saw. */
export interface RequestRecord {
  readonly route: Route;
  readonly path: string;
  /** Status sent, or the fault applied. */
  readonly outcome: number | FaultKind;
}

/** Options of {@link startFakeNode}. */
export interface FakeNodeOptions extends FakeChainOptions {
  /** Most transactions a block answer holds inline (a real node: 10,000). @default 10000 */
  pageSize?: number;
  /** Delay before every answer, in ms, like a node across a network. @default 0 */
  latencyMs?: number;
}

/** A local node REST API over a {@link FakeChain}, with fault injection. */
export interface FakeNode {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no `/v1`). */
  readonly url: string;
  readonly port: number;
  readonly chain: FakeChain;
  readonly requests: RequestRecord[];
  /** Requests received (latency included) whose answer is not finished and whose connection is still open. */
  readonly openRequests: number;
  /** The most {@link openRequests} there ever were at once. */
  readonly peakOpenRequests: number;
  /** Answer the next `times` requests of `route` (any route when omitted) with `fault`. */
  inject(fault: Fault, options?: { route?: Route; times?: number }): void;
  /** Forget the faults injected and not used yet, and end a storm. */
  clearFaults(): void;
  /** Answer a share `rate` of all requests with a fault drawn from `kinds` (seeded); `undefined` calms. */
  storm(
    options:
      | { rate: number; seed?: number; kinds?: readonly Fault[]; routes?: readonly Route[] }
      | undefined,
  ): void;
  /** Add `blocks` blocks every `everyMs` until {@link stopGrowing} or close. */
  grow(everyMs: number, blocks?: number): void;
  stopGrowing(): void;
  /** Go away: stop listening and drop every connection. */
  stop(): Promise<void>;
  /** Come back on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Start the fake node on 127.0.0.1 (port 0) serving a generated chain in the shapes of the node
 * REST API: `/v1`, `/v1/blocks/by_height/{h}`, `/v1/transactions`, the gas schedule resource.
 *
 * @example
 * const node = await startFakeNode({ blocks: 200, pageSize: 7 });
 * node.inject({ kind: "status", status: 500 }, { route: "block", times: 3 });
 * await node.close();
 */
export async function startFakeNode(options: FakeNodeOptions = {}): Promise<FakeNode> {
  const chain = createFakeChain(options);
  const pageSize = options.pageSize ?? 10_000;
  const requests: RequestRecord[] = [];
  const queued: { fault: Fault; route: Route | undefined; times: number }[] = [];
  let stormState:
    | { rate: number; kinds: readonly Fault[]; routes?: readonly Route[]; next: () => number }
    | undefined;
  let growTimer: NodeJS.Timeout | undefined;
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  let openRequests = 0;
  let peakOpenRequests = 0;
  const blockCache = new Map<string, string>();
  let cacheOldest = chain.oldest;

  function pickFault(route: Route): Fault | undefined {
    const i = queued.findIndex((q) => q.route === undefined || q.route === route);
    if (i !== -1) {
      const q = queued[i]!;
      if (--q.times <= 0) queued.splice(i, 1);
      return q.fault;
    }
    if (
      stormState &&
      stormState.routes?.includes(route) !== false &&
      stormState.next() < stormState.rate
    )
      return stormState.kinds[Math.floor(stormState.next() * stormState.kinds.length)];
    return undefined;
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const route = routeOf(url);
    const path = url.pathname + url.search;
    const fault = pickFault(route);
    const record = (outcome: number | FaultKind) => requests.push({ route, path, outcome });
    if (fault?.kind === "stall" && fault.ms === undefined) {
      record("stall");
      return; // the client's timeout closes the socket; stop() destroys what is left
    }
    if (fault?.kind === "stall") {
      record("stall");
      setTimeout(() => {
        if (!res.destroyed) respond(req, res, url, route, undefined, () => undefined);
      }, fault.ms);
      return;
    }
    if (fault?.kind === "trickle") {
      record("trickle");
      const right = answer(chain, pageSize, route, url);
      const body = Buffer.from(JSON.stringify(right.body));
      res.writeHead(right.status, apiHeaders(chain));
      let sent = 0;
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        if (sent === body.length) {
          clearInterval(tick);
          res.end();
          return;
        }
        res.write(body.subarray(sent, ++sent));
      }, fault.everyMs ?? 100);
      res.on("close", () => clearInterval(tick));
      return;
    }
    if (fault?.kind === "drop") {
      record("drop");
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "status") {
      record("status");
      res.writeHead(fault.status, apiHeaders(chain)).end(
        JSON.stringify({
          message: "injected",
          error_code: "internal_error",
          vm_error_code: null,
        }),
      );
      return;
    }
    if (fault?.kind === "rate_limit") {
      record("rate_limit");
      const h = apiHeaders(chain);
      if (fault.retryAfter !== undefined) h["retry-after"] = fault.retryAfter;
      res.writeHead(429, h).end(JSON.stringify({ message: "rate limited" }));
      return;
    }
    if (fault?.kind === "huge") {
      record("huge");
      streamHugeBody(res, apiHeaders(chain), fault.bytes, fault);
      return;
    }
    if (fault?.kind === "redirect") {
      record("redirect");
      res.writeHead(fault.status ?? 302, { ...apiHeaders(chain), location: fault.location });
      res.end();
      return;
    }
    if (fault?.kind === "replace") {
      record("replace");
      const right = answer(chain, pageSize, route, url);
      const r = fault.respond(right);
      res.writeHead(r.status, { ...apiHeaders(chain), ...r.headers }).end(r.body);
      return;
    }
    respond(req, res, url, route, fault, record);
  }

  function respond(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    route: Route,
    fault: Fault | undefined,
    record: (outcome: number | FaultKind) => void,
  ) {
    // Blocks never change once generated: their clean answers are rendered once. A prune turns
    // some into 410s, so the cache is dropped whenever the oldest height has moved.
    if (chain.oldest !== cacheOldest) {
      blockCache.clear();
      cacheOldest = chain.oldest;
    }
    const cached = route === "block" && !fault ? blockCache.get(url.pathname) : undefined;
    if (cached) {
      record(200);
      res.writeHead(200, apiHeaders(chain)).end(cached);
      return;
    }
    const { status, body } = answer(chain, pageSize, route, url);
    let text = JSON.stringify(
      status === 200 && fault?.kind === "wrong_type" ? corrupt(route, body) : body,
    );
    if (route === "block" && status === 200 && !fault) blockCache.set(url.pathname, text);
    if (status === 200 && fault?.kind === "malformed")
      text = text.slice(0, Math.max(1, text.length >> 1));
    record(fault && status === 200 ? fault.kind : status);
    if (fault?.kind === "truncate" && status === 200) {
      res.writeHead(200, {
        ...apiHeaders(chain),
        "content-length": String(Buffer.byteLength(text)),
      });
      res.write(text.slice(0, text.length >> 1), () => req.socket.destroy());
      return;
    }
    res.writeHead(status, apiHeaders(chain)).end(text);
  }

  async function start() {
    const latency = options.latencyMs ?? 0;
    const s = createServer((req, res) => {
      openRequests++;
      if (openRequests > peakOpenRequests) peakOpenRequests = openRequests;
      res.once("close", () => openRequests--);
      if (latency > 0) setTimeout(() => handle(req, res), latency);
      else handle(req, res);
    });
    s.keepAliveTimeout = 5_000;
    s.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.address() as { port: number }).port;
    server = s;
  }

  async function stop() {
    const s = server;
    server = undefined;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  }

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    chain,
    requests,
    get openRequests() {
      return openRequests;
    },
    get peakOpenRequests() {
      return peakOpenRequests;
    },
    inject(fault, o = {}) {
      queued.push({ fault, route: o.route, times: o.times ?? 1 });
    },
    clearFaults() {
      queued.length = 0;
      stormState = undefined;
    },
    storm(o) {
      if (!o) {
        stormState = undefined;
        return;
      }
      let s = (o.seed ?? 7) >>> 0;
      const next = () => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s / 4294967296;
      };
      stormState = { rate: o.rate, kinds: o.kinds ?? STORM_FAULTS, routes: o.routes, next };
    },
    grow(everyMs, blocks = 1) {
      clearInterval(growTimer);
      growTimer = setInterval(() => chain.addBlocks(blocks), everyMs);
    },
    stopGrowing() {
      clearInterval(growTimer);
      growTimer = undefined;
    },
    stop,
    start,
    async close() {
      clearInterval(growTimer);
      await stop();
    },
  };
}

export { txnCount };
