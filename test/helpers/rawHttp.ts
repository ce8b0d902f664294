// Raw-socket HTTP/1.1 for tests of the node server: send exact bytes, parse exactly what came
// back (every response, in order, with its head as sent), see whether the server closed.
import net from "node:net";

export interface RawResponse {
  status: number;
  /** The status line and headers, as sent (ends with a blank line). */
  head: string;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Split `data` into complete responses. `methods[i]` is the method of the i-th request (a HEAD
 * answer has no body); 1xx, 204 and 304 have none either. Responses without Content-Length
 * or chunked encoding run to the end of `data`; `rest` holds an incomplete one.
 */
export function parseResponses(
  data: Buffer,
  methods: readonly string[] = [],
): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  let index = 0;
  while (at < data.length) {
    const end = data.indexOf("\r\n\r\n", at, "latin1");
    if (end === -1) break;
    const head = data.subarray(at, end + 4).toString("latin1");
    const lines = head.split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? Number.NaN);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1, -2)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyEnd = end + 4;
    const informational = status >= 100 && status < 200;
    const bodiless = informational || status === 204 || status === 304 || methods[index] === "HEAD";
    if (!bodiless) {
      if (headers["content-length"] !== undefined) {
        bodyEnd += Number(headers["content-length"]);
        if (bodyEnd > data.length) break;
      } else if (headers["transfer-encoding"] === "chunked") {
        const last = data.indexOf("\r\n0\r\n\r\n", end + 2, "latin1");
        if (last === -1) break;
        bodyEnd = last + 7;
      } else bodyEnd = data.length;
    }
    responses.push({
      status,
      head,
      headers,
      body: data.subarray(end + 4, bodyEnd).toString("latin1"),
    });
    at = bodyEnd;
    if (!informational) index++;
  }
  return { responses, rest: data.subarray(at) };
}

/** Read responses off `socket` one at a time, as they arrive. */
export function readResponses(socket: net.Socket, methods: readonly string[] = []) {
  let buffer = Buffer.alloc(0);
  let taken = 0;
  let wake: (() => void) | undefined;
  let ended = false;
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake?.();
  });
  const closed = new Promise<void>((resolve) => {
    socket.on("error", () => {});
    socket.once("close", () => {
      ended = true;
      wake?.();
      resolve();
    });
  });
  return {
    closed,
    /** The next response; rejects when the connection closes first. */
    async next(): Promise<RawResponse> {
      for (;;) {
        const { responses } = parseResponses(buffer, methods.slice(taken));
        const i = responses.findIndex((r) => r.status >= 200);
        const r = responses[i];
        const sized =
          r !== undefined &&
          (r.headers["content-length"] !== undefined ||
            r.headers["transfer-encoding"] === "chunked" ||
            methods[taken] === "HEAD");
        if (r !== undefined && (sized || ended)) {
          const size = responses
            .slice(0, i + 1)
            .reduce((n, x) => n + x.head.length + x.body.length, 0);
          buffer = buffer.subarray(size);
          taken++;
          return r;
        }
        if (ended) throw new Error("connection closed before a complete response");
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}

/**
 * Connect, write `chunks` (one write each, `gapMs` apart), optionally half-close, and collect
 * every byte until the server closes the connection or `timeoutMs` passes.
 */
export function exchange(
  port: number,
  chunks: readonly (string | Buffer)[],
  {
    methods = [],
    timeoutMs = 2000,
    halfClose = false,
    gapMs = 0,
    from,
  }: {
    methods?: readonly string[];
    timeoutMs?: number;
    halfClose?: boolean;
    gapMs?: number;
    /** The local address to connect from (another loopback address is another peer). */
    from?: string;
  } = {},
): Promise<{ responses: RawResponse[]; rest: Buffer; closedByServer: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress: from });
    const received: Buffer[] = [];
    let error: string | undefined;
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", (c: Buffer) => received.push(c));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("end", () => {
      closedByServer = true;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (error !== undefined) closedByServer = true;
      resolve({ ...parseResponses(Buffer.concat(received), methods), closedByServer, error });
    });
    socket.on("connect", async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (socket.destroyed) return;
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        socket.write(chunk);
      }
      if (halfClose && !socket.destroyed) socket.end();
    });
  });
}

/** The headers every answer of the node server carries, whatever made it. */
export function expectOurHeaders(
  r: RawResponse,
  expect: (
    actual: unknown,
    message?: string,
  ) => { toBe(v: unknown): void; toMatch(v: RegExp): void },
) {
  const where = `${r.status} ${r.body.slice(0, 120)}`;
  expect(r.headers["x-content-type-options"], where).toBe("nosniff");
  expect(r.headers["access-control-allow-origin"], where).toBe("*");
  expect(r.headers.date, where).toMatch(
    /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  );
  if (r.status >= 400) {
    expect(r.headers["content-type"], where).toBe("application/json");
    expect(r.body, where).toMatch(
      /^\{"message":"[^"]+","error_code":"[a-z_]+","vm_error_code":null\}$/,
    );
  }
}
