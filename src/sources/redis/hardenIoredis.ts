/**
 * ioredis (5 and 6) turns two replies a real Redis never sends into an uncaught exception that
 * ends the process: a reply when no command is waiting (its "command queue state error" path
 * calls `toString()` on the reply, which throws for a RESP null), and a RESP3 push frame whose
 * first element is null. Its parser callbacks rethrow on `process.nextTick` on purpose (for
 * exceptions of user listeners), so nothing around a call can catch them. A server that is not
 * Redis, or a proxy that mangles replies, could take a replica or a publisher down with one
 * stray `$-1`.
 *
 * The two handlers are wrapped, once, on the class ioredis builds its connections with, and
 * the wrappers act only for the clients gasdigest made ({@link adoptClient}): every other
 * ioredis client of the process (the application's own) keeps ioredis' behaviour exactly. For
 * ours, a stray reply is reported as the `error` event ioredis means to emit, and the connection
 * is dropped (it is out of step: every later reply would answer the wrong command), so our
 * calls fail with `closed` and the source or sink reconnects with its backoff. Nothing changes
 * for a server that behaves. When ioredis no longer has these methods (a later major version),
 * this does nothing.
 */
interface DataHandlerLike {
  redis: {
    commandQueue: { length: number };
    emit(event: "error", error: Error): void;
    disconnect(): void;
  };
  shiftCommand(reply: unknown): unknown;
  returnPush(reply: unknown): void;
}

/** The message of the `error` event for a reply no command was waiting for. */
export const STRAY_REPLY_MESSAGE =
  "the server sent a reply no command was waiting for: the connection is out of step, so it is closed";

let hardened = false;
/** The clients gasdigest made: the only ones the wrapped handlers treat differently. */
const ours = new WeakSet<object>();

/**
 * Mark `client` as one of gasdigest's own, so the hardened reply handlers act for it (see the
 * module comment); every other client keeps ioredis' own behaviour.
 *
 * @example
 * adoptClient(client); // right after `new Redis(...)`, before it connects
 */
export function adoptClient(client: object): void {
  ours.add(client);
}

/**
 * Wrap ioredis' reply handlers (see the module comment). Idempotent; never throws.
 *
 * @example
 * await hardenIoredis(); // before the first connection
 */
export async function hardenIoredis(): Promise<void> {
  if (hardened) return;
  hardened = true;
  let proto: DataHandlerLike | undefined;
  try {
    const m = (await import("ioredis/built/DataHandler.js" as string)) as {
      default?: { default?: { prototype?: unknown }; prototype?: unknown };
    };
    const Class = (m.default?.default ?? m.default) as { prototype?: unknown } | undefined;
    proto = Class?.prototype as DataHandlerLike | undefined;
  } catch {
    return; // another layout: nothing to wrap
  }
  if (typeof proto?.shiftCommand !== "function" || typeof proto.returnPush !== "function") return;
  const shiftCommand = proto.shiftCommand;
  proto.shiftCommand = function (this: DataHandlerLike, reply: unknown) {
    if (!ours.has(this.redis) || this.redis.commandQueue.length > 0)
      return shiftCommand.call(this, reply);
    this.redis.emit("error", new Error(STRAY_REPLY_MESSAGE));
    this.redis.disconnect();
    return null;
  };
  const returnPush = proto.returnPush;
  proto.returnPush = function (this: DataHandlerLike, reply: unknown) {
    // ioredis reads reply[0] as the push's kind: a frame without one is not a push it knows.
    const unknown =
      !Array.isArray(reply) || reply.length === 0 || reply[0] === null || reply[0] === undefined;
    if (unknown && ours.has(this.redis)) return;
    returnPush.call(this, reply);
  };
}
