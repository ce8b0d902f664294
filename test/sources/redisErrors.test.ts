import { describe, expect, it } from "vitest";
import { commandFailure, RedisFeedError, tooLargeToRead } from "../../src/sources/redis/errors.js";

describe("tooLargeToRead", () => {
  const url = "redis://127.0.0.1:6379";
  it("names the entry that is too long for the client to decode, and its repair", () => {
    // What the client's parser throws on a reply holding a string over V8's limit, as the
    // connection reports it (a command failure, blamed on Redis).
    const failure = commandFailure(
      url,
      new RangeError("Cannot create a string longer than 0x1fffffe8 characters"),
    );
    const e = tooLargeToRead(url, "gasdigest:blocks", "1383-0", failure) as RedisFeedError;
    expect(e).toBeInstanceOf(RedisFeedError);
    expect(e.kind).toBe("reply");
    expect(e.shortMessage).toBe(
      "an entry of stream gasdigest:blocks after 1383-0 is too large for this process to read (longer than the longest string it can hold, about 512 MB)",
    );
    expect(e.message).toContain(
      "XRANGE gasdigest:blocks (1383-0 + COUNT 1) and delete it (XDEL gasdigest:blocks <its id>)",
    );
    expect(e.cause).toBe(failure);
  });

  it("leaves every other failure as it is", () => {
    const other = commandFailure(url, new Error("NOPERM this user has no permissions"));
    expect(tooLargeToRead(url, "s", "1-0", other)).toBe(other);
  });
});
