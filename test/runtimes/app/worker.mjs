// workerd: the app as a module worker (bundled with esbuild, run without nodejs_compat).
import { createApp } from "./app.mjs";

const app = createApp();

export default {
  fetch: (request) => app(request),
};
