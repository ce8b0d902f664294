// A password in a --source URL reaches neither the log nor stderr (the node source sends it as
// Basic authentication; the Redis source to the server).
import { describe, expect, it } from "vitest";
import { showSource } from "../../src/cli/sourceSpec.js";
import { runCli } from "../helpers/cli.js";

describe("--source credentials", () => {
  it("are shown as *** wherever a source is logged or echoed", () => {
    expect(showSource("aptos:https://user:s3cret@node.example/v1")).toBe(
      "aptos:https://***@node.example/v1",
    );
    expect(showSource("redis://:s3cret@127.0.0.1:6379/2")).toBe("redis://***@127.0.0.1:6379/2");
    expect(showSource("aptos:https://node.example/v1")).toBe("aptos:https://node.example/v1");
    expect(showSource("ndjson:/tmp/a@b.ndjson")).toBe("ndjson:/tmp/a@b.ndjson");
    // Spellings the URL parser accepts (and sends the credentials of) without "//".
    for (const odd of [
      "aptos:https:user:s3cret@host/v1",
      "aptos:https:/user:s3cret@host/v1",
      "aptos:https:\\user:s3cret@host/v1",
      "aptos: https://user:s3cret@host/v1",
    ])
      expect(showSource(odd)).toBe("aptos:https://***@host/v1");
  });

  it("are not echoed by the errors of a --source that cannot be used", async () => {
    for (const argv of [
      ["serve", "--source", "aptos:ftp://user:s3cret@node.example/v1"],
      ["serve", "--source", "aptos:http://user:s3cret@[bad/v1"],
      ["serve", "--source", "tcp://user:s3cret@node.example"],
      ["record", "--source", "tcp://user:s3cret@node.example", "--out", "/dev/null"],
      // A Redis URL that cannot be parsed (port out of range), or names no host.
      ["serve", "--source", "redis://:s3cret@127.0.0.1:99999"],
      ["publish", "--source", "sim", "--to", "redis://:s3cret@127.0.0.1:99999"],
      ["publish", "--source", "sim", "--to", "redis://:s3cret@/2"],
      // A query string (an API key) of a URL that cannot be parsed.
      ["serve", "--source", "aptos:http://node:99999/v1?api_key=s3cret"],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr, argv.join(" ")).toContain("***");
      expect(r.stderr, argv.join(" ")).not.toContain("s3cret");
    }
  });
});
