// A request whose body framing turns out bad after its answer went out (no route waits for a
// body): one answer per request, then the connection closes. A second status line would
// answer a request the client never sent, and a client reusing the connection would take it
// for the answer to its next one (RFC 9112 §6.3: a bad framing ends the connection).
import { describe, expect, it } from "vitest";
import { startNodeServer } from "../helpers/nodeServer.js";
import { exchange } from "../helpers/rawHttp.js";

const start = async () => (await startNodeServer()).port;

describe("bad body framing after the answer", () => {
  it.each([
    [
      "a chunk size that is not hex",
      "GET /v1/estimate_gas_price",
      "Transfer-Encoding: chunked\r\n\r\nzz\r\n",
      200,
    ],
    [
      "an unknown transfer coding",
      "POST /v1/spec.json",
      "Transfer-Encoding: xchunked\r\n\r\n",
      405,
    ],
    [
      "a transfer coding with a parameter",
      "POST /v1/spec.json",
      "Transfer-Encoding: chunked;x\r\n\r\n",
      405,
    ],
  ])("%s: one answer, then the connection closes", async (_, line, rest, status) => {
    const port = await start();
    const r = await exchange(port, [`${line} HTTP/1.1\r\nHost: x\r\n${rest}`], { timeoutMs: 3000 });
    expect(r.responses.map((x) => x.status)).toEqual([status]);
    expect(r.rest.length).toBe(0);
    expect(r.closedByServer).toBe(true);
  });

  it("a malformed request after a complete one still gets its 400", async () => {
    const port = await start();
    const r = await exchange(port, [
      "GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\nGET /v1 HTTP/1.1\r\nHo st: x\r\n\r\n",
    ]);
    expect(r.responses.map((x) => x.status)).toEqual([200, 400]);
  });
});
