import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { SERVE_USAGE, type ServeHandle, startServe } from "../../src/cli/serve.js";
import { runCli } from "../helpers/cli.js";
import { exchange } from "../helpers/rawHttp.js";

const handles: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

describe("gasdigest serve: the flags of the server limits", () => {
  it("lists every limit in --help", () => {
    for (const flag of [
      "--max-connections",
      "--write-idle-timeout-ms",
      "--max-body-size",
      "--max-pipelined-requests",
      "--max-header-size",
      "--max-url-length",
      "--keep-alive-timeout-ms",
      "--request-timeout-ms",
      "--close-timeout-ms",
    ])
      expect(SERVE_USAGE).toContain(flag);
  });

  it("rejects a bad value with exit code 1, naming the flag and its bounds", async () => {
    for (const [argv, message] of [
      [["--max-connections", "0"], "--max-connections must be a whole number from 1 to"],
      [["--max-header-size", "100"], "--max-header-size must be a whole number from 1024 to"],
      [["--write-idle-timeout-ms", "soon"], "--write-idle-timeout-ms must be a whole number"],
      [["--max-body-size", "1.5"], "--max-body-size must be a whole number from 0 to"],
    ] as const) {
      const r = await runCli(["serve", "--port", "0", ...argv]);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
    }
  });

  it("passes the limits to the server", async () => {
    const handle = await startServe(
      ["--port", "0", "--interval-ms", "0", "--max-body-size", "10", "--max-url-length", "40"],
      { stdout: new PassThrough(), stderr: new PassThrough() },
    );
    handles.push(handle);
    const port = Number(new URL(handle.url).port);
    const body = await exchange(port, [
      "POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world",
    ]);
    expect(body.responses[0]?.status).toBe(413);
    expect(body.responses[0]?.body).toContain("request body is too large (over 10 bytes)");
    const url = await exchange(port, [`GET /v1/${"a".repeat(50)} HTTP/1.1\r\nHost: x\r\n\r\n`], {
      halfClose: true,
    });
    expect(url.responses[0]?.body).toContain("request URL is too long (over 40 bytes)");
  });
});
