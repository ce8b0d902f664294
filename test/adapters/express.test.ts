import http from "node:http";
import express5 from "express";
import express4 from "express4";
import { describe, expect, it } from "vitest";
import { gasdigest } from "../../src/adapters/express/index.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { recordingLogger } from "../http/helpers.js";
import {
  adapterContract,
  ESTIMATE,
  engineWithBlocks,
  errorBody,
  expectEncodedTargetsOwned,
  listenLocal,
  request,
} from "./contract.js";

/** The chain-state headers the handler exposes to browser pages (default header prefix). */
const CHAIN_STATE =
  "X-Aptos-Chain-Id, X-Aptos-Ledger-Version, X-Aptos-Ledger-Oldest-Version, X-Aptos-Ledger-TimestampUsec, X-Aptos-Epoch, X-Aptos-Block-Height, X-Aptos-Oldest-Block-Height";

const versions = [
  ["Express 5", express5],
  ["Express 4", express4],
] as const;

/** An app with gasdigest at `mount`, and a host route after it that answers what reaches it. */
async function host(
  express: typeof express5,
  mount: string,
  middleware: ReturnType<typeof gasdigest>,
  extra?: (app: express5.Express) => void,
) {
  const app = express();
  app.get("/before", (_req, res) => {
    res.send("before");
  });
  if (mount === "") app.use(middleware);
  else app.use(mount, middleware);
  app.use((req, res) => {
    res.status(418).send(`host app: ${req.originalUrl}`);
  });
  extra?.(app);
  const server = http.createServer(app);
  const { origin, close } = await listenLocal(server);
  return { base: origin + mount, origin, close };
}

for (const [name, express] of versions) {
  adapterContract({
    name,
    serve: (engine, options, mount) => host(express, mount, gasdigest(engine, options)),
  });

  describe(`${name}: a native middleware`, () => {
    it("passes requests that are not its own to next(), at the root and under a mount", async () => {
      const root = await host(
        express,
        "",
        gasdigest(engineWithBlocks(), { maxStalenessMs: false }),
      );
      try {
        expect((await request(`${root.base}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
        expect((await request(`${root.base}/before`)).text).toBe("before");
        const other = await request(`${root.base}/other?x=1`);
        expect(other.status).toBe(418);
        expect(other.text).toBe("host app: /other?x=1");
        // Outside the base path, even a known method mismatch is the host's business.
        expect((await request(`${root.base}/v2/estimate_gas_price`)).status).toBe(418);
      } finally {
        await root.close();
      }
      const chain = await host(
        express,
        "/chain",
        gasdigest(engineWithBlocks(), { maxStalenessMs: false }),
      );
      try {
        expect((await request(`${chain.origin}/chain/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
        expect((await request(`${chain.origin}/chain/other`)).text).toBe("host app: /chain/other");
        // Outside the mount, Express never calls the middleware.
        expect((await request(`${chain.origin}/v1/estimate_gas_price`)).text).toBe(
          "host app: /v1/estimate_gas_price",
        );
      } finally {
        await chain.close();
      }
    });

    it("honours a rewrite of req.url before or inside its mount, and keeps dots that leave it out", async () => {
      const app = express();
      // Internal routing as Express documents it: the URL rewritten before the router sees it.
      app.use((req, _res, next) => {
        if (req.url.startsWith("/legacy/")) req.url = `/chain/${req.url.slice(8)}`;
        next();
      });
      app.use("/chain", gasdigest(engineWithBlocks(), { maxStalenessMs: false }));
      app.use(
        "/alias",
        (req, _res, next) => {
          req.url = `/v1${req.url}`;
          next();
        },
        gasdigest(engineWithBlocks(), { maxStalenessMs: false }),
      );
      app.use((req, res) => {
        res.status(418).send(`host app: ${req.originalUrl}`);
      });
      const { origin, close } = await listenLocal(http.createServer(app));
      try {
        expect((await request(`${origin}/legacy/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
        expect((await request(`${origin}/alias/estimate_gas_price`)).text).toBe(ESTIMATE);
        const out = await request(origin, { target: "/alias/../../v1/estimate_gas_price" });
        expect(out.status).toBe(418);
      } finally {
        await close();
      }
      // At the root, a rewrite leaves the middleware unmounted: dots stop at the root, as a URL
      // parser has them.
      const root = express();
      root.use((req, _res, next) => {
        req.url = `${req.url}${req.url.includes("?") ? "&" : "?"}via=rewrite`;
        next();
      });
      root.use(gasdigest(engineWithBlocks(), { maxStalenessMs: false }));
      const atRoot = await listenLocal(http.createServer(root));
      try {
        const up = await request(atRoot.origin, { target: "/../v1/estimate_gas_price" });
        expect(up.text).toBe(ESTIMATE);
      } finally {
        await atRoot.close();
      }
    });

    it("with basePath at the root of the mount, only its exact routes are its own", async () => {
      const app = await host(
        express,
        "",
        gasdigest(engineWithBlocks(), { maxStalenessMs: false, basePath: "" }),
      );
      try {
        expect((await request(`${app.base}/estimate_gas_price`)).text).toBe(ESTIMATE);
        expect((await request(`${app.base}/spec.json`)).status).toBe(200);
        expect((await request(`${app.base}/nope`)).text).toBe("host app: /nope");
      } finally {
        await app.close();
      }
    });

    it("answers an absolute-form target or an encoded slash under its base path itself, as the handler reads them", async () => {
      for (const mount of ["", "/chain"]) {
        const app = await host(
          express,
          mount,
          gasdigest(engineWithBlocks(), { maxStalenessMs: false }),
        );
        try {
          await expectEncodedTargetsOwned(app.origin, mount);
        } finally {
          await app.close();
        }
      }
    });

    it("serves the estimate when its logger throws: a broken log sink is not the host's error", async () => {
      const { logger } = recordingLogger();
      const failing = {
        ...logger,
        debug() {
          throw new Error("log sink is down");
        },
      };
      const seen: unknown[] = [];
      const app = await host(
        express,
        "",
        gasdigest(engineWithBlocks(), { maxStalenessMs: false, logger: failing }),
        (a) =>
          a.use((err: Error, _req: express5.Request, res: express5.Response, _next: () => void) => {
            seen.push(err);
            res.status(500).send(`error handler: ${err.message}`);
          }),
      );
      try {
        const res = await request(`${app.base}/v1/estimate_gas_price`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(ESTIMATE);
        expect(seen).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it("keeps the Vary an earlier middleware set (an application's cors()), adding its own", async () => {
      const app = express();
      // What cors({ origin: [...] }) does before passing the request on.
      app.use((_req, res, next) => {
        res.setHeader("Access-Control-Allow-Origin", "https://a.example");
        res.vary("Origin");
        next();
      });
      app.use(gasdigest(engineWithBlocks(), { maxStalenessMs: false, corsOrigin: false }));
      const { origin, close } = await listenLocal(http.createServer(app));
      try {
        const estimate = await request(`${origin}/v1/estimate_gas_price`);
        expect(estimate.text).toBe(ESTIMATE);
        expect(estimate.headers.vary).toBe("Accept, Origin");
        expect((await request(`${origin}/v1/-/healthy`)).headers.vary).toBe("Origin");
      } finally {
        await close();
      }
    });

    it("keeps the headers an earlier cors() exposes, adding the chain-state ones", async () => {
      const app = express();
      // What cors({ exposedHeaders: ["X-Request-Id"] }) does before passing the request on.
      app.use((_req, res, next) => {
        res.setHeader("Access-Control-Allow-Origin", "*");
        res.setHeader("Access-Control-Expose-Headers", "X-Request-Id");
        res.setHeader("X-Request-Id", "req-1");
        next();
      });
      app.use(gasdigest(engineWithBlocks(), { maxStalenessMs: false }));
      const { origin, close } = await listenLocal(http.createServer(app));
      try {
        for (const path of ["/v1/estimate_gas_price", "/v1/nope", "/spec.json"]) {
          const res = await request(`${origin}${path}`);
          expect(res.headers["access-control-expose-headers"]).toBe(`${CHAIN_STATE}, X-Request-Id`);
          expect(res.headers["x-request-id"]).toBe("req-1");
        }
      } finally {
        await close();
      }
    });

    it("sends errors thrown while answering (headers already sent upstream) to next(err)", async () => {
      const seen: unknown[] = [];
      const app = express();
      // An earlier middleware that already sent its own head, then passed the request on.
      app.use((_req, res, next) => {
        res.writeHead(299, { "Content-Type": "text/plain" });
        res.flushHeaders();
        next();
      });
      app.use(gasdigest(engineWithBlocks(), { maxStalenessMs: false }));
      app.use((err: Error, _req: express5.Request, res: express5.Response, _next: () => void) => {
        seen.push((err as NodeJS.ErrnoException).code);
        res.end();
      });
      const { origin, close } = await listenLocal(http.createServer(app));
      try {
        const res = await request(`${origin}/v1/estimate_gas_price`);
        expect(res.status).toBe(299);
        expect(seen).toEqual(["ERR_HTTP_HEADERS_SENT"]);
      } finally {
        await close();
      }
    });
  });
}

describe("gasdigest() for Express: the factory", () => {
  it("returns a middleware named gasdigest taking (req, res, next)", () => {
    const middleware = gasdigest(engineWithBlocks());
    expect(middleware.name).toBe("gasdigest");
    expect(middleware.length).toBe(3);
  });

  it("validates the engine and every option up front", () => {
    let error: unknown;
    try {
      gasdigest(engineWithBlocks(), { basePath: "v1", corsOrigin: "nope", colour: 1 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path)).toEqual([
      "basePath",
      "corsOrigin",
      "colour",
    ]);
    expect(() => gasdigest({} as never)).toThrow(
      "invalid configuration: engine: must be an engine made by createEngine()",
    );
  });

  it("works in a bare node:http server as a Connect-style middleware", async () => {
    const middleware = gasdigest(engineWithBlocks(), { maxStalenessMs: false });
    const server = http.createServer((req, res) =>
      middleware(req, res, () => {
        res.writeHead(404).end("fell through");
      }),
    );
    const { origin, close } = await listenLocal(server);
    try {
      expect((await request(`${origin}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
      expect((await request(`${origin}/v1/nope`)).text).toBe(
        errorBody("web_framework_error", "not found"),
      );
      expect((await request(`${origin}/elsewhere`)).text).toBe("fell through");
    } finally {
      await close();
    }
  });
});
