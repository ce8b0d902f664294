// The app every runtime serves (node, Bun, Deno, workerd), written as a user would: the engine
// from "gasdigest", a push source fed by POST /blocks (NDJSON, one block per line), everything
// else answered by the fetch adapter, with the explorer's files from gasdigest/explorer-assets.
import { aip34, createEngine, parseJsonLossless, pushSource } from "gasdigest";
import { explorerAssets } from "gasdigest/explorer-assets";
import { createFetchHandler } from "gasdigest/fetch";

/** A fetch handler `(Request) => Promise<Response>` serving a fresh engine. */
export function createApp() {
  const blocks = pushSource();
  const engine = createEngine({ strategy: aip34() });
  engine.connect(blocks.source$);
  const gasdigest = createFetchHandler(engine, { explorerAssets });
  return async function app(request) {
    if (request.method === "POST" && pathOf(request.url) === "/blocks") {
      const lines = (await request.text()).split("\n");
      let accepted = 0;
      const rejected = [];
      lines.forEach((line, i) => {
        if (line.trim() === "") return;
        try {
          blocks.push(parseJsonLossless(line));
          accepted++;
        } catch (err) {
          rejected.push(`line ${i + 1}: ${err.shortMessage ?? err.message}`);
        }
      });
      return Response.json({ accepted, rejected }, { status: rejected.length > 0 ? 400 : 200 });
    }
    return gasdigest(request);
  };
}

/**
 * The path of `request.url`. Bun hands over a relative one ("/blocks") when the request has no
 * valid Host: resolved against a base, both forms give their path. Deno and workerd paste an
 * invalid Host into it ("http://a b/blocks"), which no URL parser takes: no path, so gasdigest
 * answers it (400 invalid Host header).
 */
function pathOf(url) {
  try {
    return new URL(url, "http://x").pathname;
  } catch {
    return "";
  }
}
