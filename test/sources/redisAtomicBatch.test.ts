// A batch of XADDs that Redis refuses in part (OOM as memory goes up and down while replicas
// read) must not lose the refused heights: the batch is one transaction, written whole or not
// at all. Against a small RESP server with a stream's id rules, whose third XADD ever is
// refused with OOM (at queueing, inside a transaction, as Redis does).
import { describe, expect, it } from "vitest";
import { until } from "../helpers/until.js";
import { cleanup, handSink } from "./redisHelpers.js";
import { respServer } from "./respServer.js";

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
const array = (items: string[]) => `*${items.length}\r\n${items.join("")}`;
const REFUSED_REPLY =
  "-ERR The ID specified in XADD is equal or smaller than the target stream top item\r\n";
const OOM_REPLY = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

/** A RESP server holding one stream in memory; XADD number `oomAt` (1-based, ever) fails with OOM. */
async function streamServer(oomAt: number) {
  const entries: { id: string; height: bigint; fields: string[] }[] = [];
  let xadds = 0;
  const top = () => entries.at(-1);
  /** Counts an XADD as it arrives (queued or run at once): whether Redis refuses it with OOM. */
  const outOfMemory = () => ++xadds === oomAt;
  /** What an XADD that passed the memory check answers when it is run, and the entry it adds. */
  function xadd(args: readonly string[]): { reply: string; entry?: (typeof entries)[number] } {
    const at = args.findIndex((a) => /^\d+-0$/.test(a));
    const id = args[at]!;
    const height = BigInt(id.split("-")[0]!);
    const t = top();
    if (t && height <= t.height) return { reply: REFUSED_REPLY };
    return { reply: bulk(id), entry: { id, height, fields: args.slice(at + 1) } };
  }
  const server = await respServer(() => {
    let queued: (readonly string[])[] | undefined;
    let aborted = false;
    return (args, socket) => {
      const name = args[0]!.toUpperCase();
      if (name === "INFO") socket.write("$0\r\n\r\n");
      else if (name === "TYPE") socket.write(entries.length > 0 ? "+stream\r\n" : "+none\r\n");
      else if (name === "MULTI") {
        queued = [];
        aborted = false;
        socket.write("+OK\r\n");
      } else if (name === "XADD" && queued) {
        // Redis refuses a write it has no memory for when it is queued, and then EXEC.
        if (outOfMemory()) {
          aborted = true;
          socket.write(OOM_REPLY);
        } else {
          queued.push(args);
          socket.write("+QUEUED\r\n");
        }
      } else if (name === "EXEC") {
        const q = queued ?? [];
        queued = undefined;
        if (aborted) {
          socket.write("-EXECABORT Transaction discarded because of previous errors.\r\n");
          return;
        }
        const replies = q.map((a) => {
          const r = xadd(a);
          if (r.entry) entries.push(r.entry);
          return r.reply;
        });
        socket.write(`*${replies.length}\r\n${replies.join("")}`);
      } else if (name === "XADD") {
        if (outOfMemory()) {
          socket.write(OOM_REPLY);
          return;
        }
        const r = xadd(args);
        if (r.entry) entries.push(r.entry);
        socket.write(r.reply);
      } else if (name === "XREVRANGE" || name === "XRANGE") {
        const t = name === "XREVRANGE" ? top() : entries.find((e) => e.id === args[2]);
        socket.write(t ? array([array([bulk(t.id), array(t.fields.map(bulk))])]) : "*0\r\n");
      } else socket.write("+OK\r\n");
    };
  });
  cleanup.push(server.close);
  return { url: server.url, heights: () => entries.map((e) => e.height) };
}

describe("a batch Redis refuses in part (OOM)", () => {
  it("writes every height once, in order: the batch waits and is written whole", async () => {
    const redis = await streamServer(3);
    const { write, results, events } = handSink(redis.url, { batchSize: 100 });
    await write(1, 5);
    await until(() => results.length === 5);
    expect(redis.heights()).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(results.map((r) => `${r.height}:${r.outcome}`)).toEqual([
      "1:published",
      "2:published",
      "3:published",
      "4:published",
      "5:published",
    ]);
    // The refusal was an outage, retried, named by Redis's own reason.
    const retrying = events.find((e) => e.type === "retrying") as
      | { error: { message: string } }
      | undefined;
    expect(retrying?.error.message).toMatch(/OOM command not allowed/);
  });
});
