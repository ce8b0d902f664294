import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `http://127.0.0.1:PORT` of a {@link freePort}: a node URL nothing listens on (a request is
 * refused at connect), for tests of options and flags, or of a node that is down. Not port 1
 * or 9: those are Fetch standard "bad ports", which the node source refuses when it is made.
 */
export async function noNodeUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
