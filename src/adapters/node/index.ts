export { createServer, type GasdigestServer } from "./createServer.js";
export { type ListenOptions, listen } from "./listen.js";
export type { NodeServerOptions } from "./parseServerOptions.js";
