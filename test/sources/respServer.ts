// A TCP server on 127.0.0.1 speaking just the request side of RESP, for fake Redis servers in
// tests: each command a client sends (an array of bulk strings) is handed to that connection's
// own handler, which writes its replies on the socket.
import { createServer, type Socket } from "node:net";

/** A command's arguments, the name first as sent (`XADD`, `xadd`, ...). */
export type RespCommand = readonly string[];

/**
 * Start the server; `connection()` is called once per client connection and returns the
 * handler of its commands (so each connection keeps its own state, such as a MULTI queue).
 *
 * @example
 * const server = await respServer(() => (args, socket) => socket.write("+OK\r\n"));
 * server.url; // "redis://127.0.0.1:<port>"
 */
export async function respServer(
  connection: () => (args: RespCommand, socket: Socket) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    const handle = connection();
    let buffered = "";
    socket.on("data", (data) => {
      buffered += String(data);
      // Each command is an array of bulk strings: *N\r\n($len\r\narg\r\n)*N.
      for (;;) {
        const m = /^\*(\d+)\r\n/.exec(buffered);
        if (!m) return;
        const args: string[] = [];
        let at = m[0].length;
        for (let i = 0; i < Number(m[1]); i++) {
          const len = /^\$(\d+)\r\n/.exec(buffered.slice(at));
          if (!len || buffered.length < at + len[0].length + Number(len[1]) + 2) return;
          at += len[0].length;
          args.push(buffered.slice(at, at + Number(len[1])));
          at += Number(len[1]) + 2;
        }
        buffered = buffered.slice(at);
        handle(args, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
