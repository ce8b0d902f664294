export { createServer, type GasdigestServer, type NodeServerOptions } from "./createServer.js";
export { type ListenOptions, listen } from "./listen.js";
