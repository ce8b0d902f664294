// Request heads the node server must refuse rather than half-read or misframe: more field
// lines than it reads (a duplicate Host among the lines dropped would go unseen), and a
// Transfer-Encoding in HTTP/1.0 (RFC 9112 §6.1: faulty framing, close the connection).
import { describe, expect, it } from "vitest";
import { startNodeServer } from "../helpers/nodeServer.js";
import { exchange, expectOurHeaders } from "../helpers/rawHttp.js";

const errorBody = (message: string) =>
  JSON.stringify({ message, error_code: "web_framework_error", vm_error_code: null });

const start = async () => (await startNodeServer()).port;

/** A GET whose head has `Host: a`, `fillers` other field lines, then `last` (if any). */
const head = (fillers: number, last = "") =>
  `GET /v1/-/healthy HTTP/1.1\r\nHost: a\r\n${"a: b\r\n".repeat(fillers)}${last}\r\n`;

// Node 22.23.2, 24.18.1 and later refuse a head over `maxHeadersCount` lines as one over the
// bytes: with the count one above 1,000, a head of 1,100 lines was answered 400 "request head is
// too large" there (CI runs these on those Nodes too).
describe("the number of header field lines", () => {
  it("serves a head of 1,000 field lines", async () => {
    const port = await start();
    const r = await exchange(port, [head(999)], { halfClose: true });
    expect(r.responses.map((x) => x.status)).toEqual([200]);
  });

  it.each([
    ["1,001 field lines", head(1000)],
    ["a second Host after 1,100 lines", head(1100, "Host: evil.example\r\n")],
    ["a second Host after 2,000 lines", head(2000, "Host: evil.example\r\n")],
    ["an invalid Host after 2,000 lines", head(2000, "Host: a b\r\n")],
    // 64 KB, but node counts only names and values against the 16 KiB: 16,300 bytes.
    [
      "16,000 lines of `a:`",
      `GET /v1/-/healthy HTTP/1.1\r\nHost: a\r\n${"a:\r\n".repeat(16_000)}\r\n`,
    ],
  ])("answers %s with 431 and closes", async (_, request) => {
    const port = await start();
    const r = await exchange(port, [request, "GET /v1 HTTP/1.1\r\nHost: a\r\n\r\n"], {
      gapMs: 20,
    });
    expect(r.responses.map((x) => x.status)).toEqual([431]);
    expect(r.responses[0]!.body).toBe(errorBody("too many header fields (over 1000 lines)"));
    expectOurHeaders(r.responses[0]!, expect);
    expect(r.closedByServer).toBe(true);
  });
});

describe("Transfer-Encoding in HTTP/1.0", () => {
  const NEXT = "GET /v1/spec.yaml HTTP/1.1\r\nHost: x\r\n\r\n";

  it.each([
    ["chunked, keep-alive asked", "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n"],
    ["chunked, with a Host", "Host: x\r\nTransfer-Encoding: chunked\r\n"],
  ])("%s: 400, the connection closes, nothing after it is answered", async (_, fields) => {
    const port = await start();
    const request = `GET /v1/-/healthy HTTP/1.0\r\n${fields}\r\n0\r\n\r\n${NEXT}`;
    const r = await exchange(port, [request]);
    expect(r.responses.map((x) => x.status)).toEqual([400]);
    expect(r.responses[0]!.body).toBe(errorBody("Transfer-Encoding in an HTTP/1.0 request"));
    expect(r.responses[0]!.headers.connection).toBe("close");
    expectOurHeaders(r.responses[0]!, expect);
    expect(r.rest.length).toBe(0);
    expect(r.closedByServer).toBe(true);
  });

  it("HTTP/1.1 with a chunked body is served, and so is what follows it", async () => {
    const port = await start();
    const request = `GET /v1/-/healthy HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${NEXT}`;
    const r = await exchange(port, [request], { halfClose: true });
    expect(r.responses.map((x) => x.status)).toEqual([200, 200]);
  });
});
