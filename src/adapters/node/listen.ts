import type http from "node:http";
import type { AddressInfo } from "node:net";

/** Options of {@link listen}. */
export interface ListenOptions {
  /** Interface to bind. @default "127.0.0.1" */
  host?: string;
  /** TCP port; 0 picks a free one. @default 8080 */
  port?: number;
}

/**
 * Start listening and resolve with the bound address once the server accepts connections
 * (rejects with the socket error, e.g. `EADDRINUSE`).
 *
 * @example
 * const { address, port } = await listen(server, { port: 0 });
 */
export function listen(server: http.Server, options: ListenOptions = {}): Promise<AddressInfo> {
  const { host = "127.0.0.1", port = 8080 } = options;
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off("listening", onListening);
      reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    try {
      server.listen(port, host);
    } catch (err) {
      server.off("error", onError);
      server.off("listening", onListening);
      reject(err);
    }
  });
}
