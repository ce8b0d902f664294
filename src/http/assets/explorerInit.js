// @ts-check
// The explorer page's own script (`<basePath>/spec/assets/explorer.js`), run in the browser after
// Swagger UI's bundle. It is served as is: scripts/buildBrowserScripts.mjs copies its text into a
// string module at build time, so the handler needs no file system. It takes no data from the
// server: everything it needs is the page's own URL.
(() => {
  const root = /** @type {HTMLElement} */ (document.getElementById("swagger-ui"));
  // The page is `<basePath>/spec`: "." is `<basePath>/`, under any mount prefix.
  const base = new URL(".", window.location.href);

  // Swagger UI gives each table of responses a "Links" column (every row "No links": the document
  // declares none) that pushed the page past a phone's width once an operation was opened (438
  // px wide at 360 and at 412): it is hidden on narrow screens. A constructed style sheet, which
  // the page's CSP (style-src 'self') allows, as it does the styles Swagger UI sets (a browser
  // without constructed style sheets, Safari before 16.4, keeps the column and the explorer).
  try {
    const narrow = new CSSStyleSheet();
    narrow.replaceSync(
      "@media (max-width: 600px) { .swagger-ui .response-col_links { display: none; } }",
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, narrow];
  } catch {
    // the column stays
  }

  /** @param {string} text */
  function fail(text) {
    const p = document.createElement("p");
    p.className = "gasdigest-error";
    p.textContent = text;
    root.appendChild(p);
  }

  // Swagger UI's bundle did not run (it answered 500, as from a node server bundled into one file
  // without the explorer's files): name it, where the failure to start it read "Could not load
  // the API document: SwaggerUIBundle is not defined" though the document was there.
  if (typeof SwaggerUIBundle !== "function") {
    fail(
      "Could not start the explorer: Swagger UI (spec/assets/swagger-ui-bundle.js) did not load. The API document is at spec.json.",
    );
    return;
  }

  /**
   * A BCS answer as text: its bytes in hex and, when they read as one of the estimate's layouts
   * (`Option<u64>, u64, Option<u64>`, or the `u64` alone), the values they hold.
   * @param {Uint8Array} bytes
   */
  function describeBcs(bytes) {
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const head = `${bytes.length} bytes of BCS (hex): ${hex}`;
    let at = 0;
    /** @returns {bigint | undefined} */
    const u64 = () => {
      if (at + 8 > bytes.length) return undefined;
      let v = 0n;
      for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i] ?? 0);
      at += 8;
      return v;
    };
    /** @returns {bigint | null | undefined} null for none, undefined when it is no Option */
    const option = () => {
      const tag = bytes[at++];
      return tag === 0 ? null : tag === 1 ? u64() : undefined;
    };
    if (bytes.length === 8) return `${head}\nas u64: gas_estimate ${u64()}`;
    const low = option();
    const regular = low === undefined ? undefined : u64();
    const high = regular === undefined ? undefined : option();
    if (high === undefined || at !== bytes.length) return head;
    /** @param {bigint | null} v */
    const show = (v) => (v === null ? "none" : String(v));
    return `${head}\nas (Option<u64>, u64, Option<u64>): deprioritized_gas_estimate ${show(low ?? null)}, gas_estimate ${regular}, prioritized_gas_estimate ${show(high)}`;
  }

  /**
   * Swagger UI reads an `application/x-bcs` answer as a Blob and shows it decoded as text (its
   * bytes that are not UTF-8 replaced by U+FFFD, in the page and in its "Download"): show the
   * bytes in hex, and the estimate they hold, instead.
   * @param {SwaggerUiResponse} response
   */
  async function showBcs(response) {
    const type = response.headers?.["content-type"];
    const data = /** @type {{ arrayBuffer?: () => Promise<ArrayBuffer> } | null | undefined} */ (
      response.data
    );
    if (
      !/^application\/x-bcs\b/i.test(String(type ?? "")) ||
      typeof data?.arrayBuffer !== "function"
    )
      return response;
    const text = describeBcs(new Uint8Array(await data.arrayBuffer()));
    response.text = text;
    response.data = text;
    return response;
  }

  fetch(new URL("spec.json", base).href, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  })
    .then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.json();
    })
    .then((/** @type {{ servers?: { url: string, description?: string }[] }} */ spec) => {
      // The document says servers: [{url: basePath}]; resolve it against this page so that
      // "Try it out" also works when the routes are mounted under a prefix.
      spec.servers = [{ url: base.href.replace(/\/$/, ""), description: "this server" }];
      window.ui = SwaggerUIBundle({
        spec,
        dom_id: "#swagger-ui",
        validatorUrl: null,
        queryConfigEnabled: false,
        deepLinking: true,
        displayOperationId: true,
        docExpansion: "list",
        defaultModelsExpandDepth: 1,
        presets: [SwaggerUIBundle.presets.apis],
        layout: "BaseLayout",
        responseInterceptor: showBcs,
      });
    })
    .catch((/** @type {unknown} */ error) => {
      fail(
        `Could not load the API document: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
})();
