import type http from "node:http";
import type { AddressInfo } from "node:net";
import {
  BaseError,
  describeValue,
  hasMethods,
  InvalidArgumentError,
  InvalidConfigError,
  openOptions,
  unknownFieldIssues,
} from "../../http/index.js";

/** Options of {@link listen}. */
export interface ListenOptions {
  /** Interface to bind. @default "127.0.0.1" */
  host?: string | undefined;
  /** TCP port; 0 picks a free one. @default 8080 */
  port?: number | undefined;
}

/**
 * Start listening and resolve with the bound address once the server accepts connections
 * (rejects with the socket error, e.g. `EADDRINUSE`).
 *
 * Rejects with {@link InvalidConfigError} when `host` is not a non-empty string, `port` not a
 * whole number from 0 to 65535, or an option is unknown (every problem named), and with
 * {@link InvalidArgumentError} when `server` is not a server.
 *
 * @example
 * const { address, port } = await listen(server, { port: 0 });
 */
export function listen(server: http.Server, options: ListenOptions = {}): Promise<AddressInfo> {
  let checked: ListenOptions;
  try {
    if (!hasMethods(server, "once", "off", "listen", "address"))
      throw new InvalidArgumentError([
        {
          path: "server",
          message: `must be a node http.Server, such as createServer()'s (got ${describeValue(server)})`,
        },
      ]);
    checked = checkListenOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const { host = "127.0.0.1", port = 8080 } = checked;
  return new Promise((resolve, reject) => {
    const done = () => {
      server.off("error", onError);
      server.off("listening", onListening);
      server.off("close", onClose);
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onListening = () => {
      done();
      resolve(server.address() as AddressInfo);
    };
    // Closed (shut down) while it was still binding: node cancels the listen and says only this.
    const onClose = () => {
      done();
      reject(new BaseError(`the server was closed before it listened on ${host}:${port}`));
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.once("close", onClose);
    try {
      server.listen(port, host);
    } catch (err) {
      done();
      reject(err);
    }
  });
}

function checkListenOptions(options: unknown): ListenOptions {
  const opened = openOptions(options);
  if (opened.issue) throw new InvalidConfigError([opened.issue]);
  const o = opened.value;
  const issues = unknownFieldIssues(o, ["host", "port"], "", "listen takes host and port");
  if (o.host !== undefined && (typeof o.host !== "string" || o.host === ""))
    issues.push({
      path: "host",
      message: `must be a non-empty string (got ${describeValue(o.host)})`,
    });
  const port = o.port;
  if (
    port !== undefined &&
    !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535)
  )
    issues.push({
      path: "port",
      message: `must be a whole number from 0 to 65535 (got ${describeValue(port)})`,
    });
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return o as ListenOptions;
}
