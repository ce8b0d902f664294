// A Redis URL is read once, by us: the client gets the fields we checked, and no message or
// crash shows the password, whatever the flag held.
import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../../src/index.js";
import { hideCredentials, showUrl } from "../../src/sources/aptosRest/urlCredentials.js";
import { connectRedis } from "../../src/sources/redis/connectRedis.js";
import { parseRedisUrl } from "../../src/sources/redis/parseRedisUrl.js";
import { runCli } from "../helpers/cli.js";

const SECRET = "s3cret";

/** The message a URL is refused with; it must never hold the password. */
function refusal(url: string): string {
  try {
    parseRedisUrl(url);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigError);
    const message = (e as Error).message;
    expect(message).not.toContain(SECRET);
    return message;
  }
  throw new Error(`${JSON.stringify(url)} was taken`);
}

describe("parseRedisUrl", () => {
  it("decodes the user name and password it hands the client, and keeps them out of display", () => {
    const t = parseRedisUrl("rediss://app%40x:p%25w%20d%3A@[::1]:6380/3");
    expect(t).toMatchObject({ host: "[::1]", port: 6380, db: 3, tls: true });
    expect(t.username).toBe("app@x");
    expect(t.password).toBe("p%w d:");
    expect(t.display).toBe("rediss://[::1]:6380/3");
    expect(JSON.stringify(t)).not.toContain("redis://app");
    // A password alone, and none.
    expect(parseRedisUrl("redis://:pw@h").username).toBeUndefined();
    expect(parseRedisUrl("redis://h").password).toBeUndefined();
  });

  it("refuses a password with a stray %, naming the fix, not the password", () => {
    expect(refusal(`redis://user:${SECRET}%zz@127.0.0.1:6379`)).toBe(
      "invalid configuration: url: the password is not percent-encoded: each % must start a byte such as %25 (a % itself) and the bytes must be UTF-8",
    );
  });

  it("refuses a / in a password, which ends the host, without quoting the rest of it", () => {
    expect(refusal(`redis://u:123/${SECRET}@127.0.0.1:6379`)).toBe(
      "invalid configuration: url: the path must be a database number, as in redis://host:6379/2 (a / in a password ends the host: percent-encode it as %2F)",
    );
  });

  it("says a Unix socket is not connected to, where it said only that no host was named", () => {
    for (const url of ["redis:///tmp/redis.sock", "unix:///tmp/redis.sock", "unix:/run/r.sock"])
      expect(refusal(url)).toBe(
        "invalid configuration: url: names a Unix socket, which gasdigest does not connect to: serve Redis on a TCP port too (its port setting) and give that, as in redis://127.0.0.1:6379",
      );
    // No host and no path is still a missing host.
    expect(refusal("redis://")).toContain("must name a host");
  });

  it("refuses spaces and control characters the URL parser would drop without a word", () => {
    // A leading space or newline, a tab inside the host: each read otherwise than it looks.
    for (const url of [
      ` redis://user:${SECRET}@127.0.0.1:6379`,
      `\nredis://user:${SECRET}@127.0.0.1:6379`,
      `redis://user:${SECRET}@127.0.\t0.1:6379`,
      `redis://user:${SECRET}@127.0.0.1:6379\n`,
    ])
      expect(refusal(url)).toContain("must not hold spaces, tabs, line breaks");
  });
});

describe("rediss:// names the host it connects to (SNI)", () => {
  it("sends the host name in the TLS hello, not an address", async () => {
    // A managed Redis behind a proxy that routes by server name refuses a hello without one;
    // Node sends none unless told. The hello is read here, no TLS is answered.
    const hellos: Buffer[] = [];
    const server = createNetServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", (hello) => {
        hellos.push(hello);
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ["localhost", "127.0.0.1"])
        await connectRedis(parseRedisUrl(`rediss://${host}:${port}`), {
          timeoutMs: 2_000,
          name: "sni-test",
        }).then(
          (c) => c.close(),
          () => undefined,
        );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(hellos).toHaveLength(2);
    expect(hellos[0]!.includes(Buffer.from("localhost"))).toBe(true);
    expect(hellos[1]!.includes(Buffer.from("127.0.0.1"))).toBe(false);
  });
});

describe("showUrl hides credentials the URL parser does not see as credentials", () => {
  it("a redis URL without // reads as a path: what precedes the last @ is hidden", () => {
    expect(showUrl(`redis:user:${SECRET}@127.0.0.1:6379`)).toBe("redis:***@127.0.0.1:6379");
    expect(showUrl(`redis:/user:${SECRET}@h`)).toBe("redis:/***@h");
    expect(hideCredentials(`redis//user:${SECRET}@h`)).toBe("***@h");
    expect(showUrl("redis://127.0.0.1:6379/0")).toBe("redis://127.0.0.1:6379/0");
  });

  it("the CLI's refusals of such URLs never echo the password", async () => {
    for (const url of [
      `redis:user:${SECRET}@127.0.0.1:6379`,
      `redis://user:${SECRET}%zz@127.0.0.1:6379`,
      ` redis://user:${SECRET}@127.0.0.1:6379`,
    ]) {
      const r = await runCli(["publish", "--to", url, "--source", "sim"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^gasdigest publish: --to/);
      expect(r.stderr).not.toContain(SECRET);
    }
  });

  it("--source takes a redis scheme in any case, as --to does", async () => {
    const r = await runCli(["serve", "--source", "REDIS://127.0.0.1:6379/0%zz"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--source: the path must be a database number");
  });
});
