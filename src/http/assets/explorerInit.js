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

  /**
   * `text`, a JSON document, laid out as Swagger UI lays out a JSON answer (two spaces a level,
   * `JSON.stringify(JSON.parse(text), null, 2)`), but with every number as the answer wrote it;
   * `undefined` when it holds no integer that a JavaScript number would round. Swagger UI parses
   * the answer to lay it out, and so showed an estimate of 2^64 − 1 as 18446744073709552000 (and
   * 2^53 + 1 as 2^53), where the wire holds the exact u64.
   * @param {string} text
   * @returns {string | undefined}
   */
  function exactJson(text) {
    const NUMBER = /-?[0-9.eE+-]+/y;
    /** @type {string[]} */
    const out = [];
    let depth = 0;
    let rounded = false;
    const newline = () => `\n${"  ".repeat(depth)}`;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] ?? "";
      if (c === '"') {
        let end = i + 1;
        while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
        out.push(text.slice(i, end + 1));
        i = end;
      } else if (c === "{" || c === "[") {
        const close = c === "{" ? "}" : "]";
        let next = i + 1;
        while (/\s/.test(text[next] ?? "")) next++;
        if (text[next] === close) {
          out.push(c + close);
          i = next;
        } else {
          depth++;
          out.push(c + newline());
        }
      } else if (c === "}" || c === "]") {
        depth--;
        out.push(newline() + c);
      } else if (c === ",") out.push(c + newline());
      else if (c === ":") out.push(": ");
      else if (/[-0-9]/.test(c)) {
        NUMBER.lastIndex = i;
        const number = NUMBER.exec(text)?.[0] ?? c;
        if (/^-?[0-9]+$/.test(number) && !Number.isSafeInteger(Number(number))) rounded = true;
        out.push(number);
        i += number.length - 1;
      } else if (!/\s/.test(c)) out.push(c);
    }
    return rounded ? out.join("") : undefined;
  }

  /**
   * A Swagger UI plugin: a JSON answer that holds an integer beyond 2^53 is shown with its
   * numbers as they came ({@link exactJson}), in the same code box (copy and download
   * included); any other answer as Swagger UI shows it.
   */
  const exactNumbers = {
    wrapComponents: {
      responseBody:
        (
          /** @type {unknown} */ Original,
          /** @type {{ React: SwaggerUiReact, getComponent: (name: string, container?: boolean) => unknown }} */ system,
        ) =>
        (/** @type {{ content?: unknown, contentType?: unknown }} */ props) => {
          const h = system.React.createElement;
          let shown;
          if (typeof props.content === "string" && /json/i.test(String(props.contentType ?? "")))
            try {
              JSON.parse(props.content);
              shown = exactJson(props.content);
            } catch {
              // Swagger UI says it cannot parse it, with the text
            }
          if (shown === undefined) return h(Original, props);
          const code = h(
            system.getComponent("HighlightCode", true),
            {
              language: "json",
              downloadable: true,
              fileName: `response_${Date.now()}.json`,
              canCopy: true,
            },
            shown,
          );
          return h("div", null, h("h5", null, "Response body"), code);
        },
    },
  };

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
        plugins: [exactNumbers],
      });
    })
    .catch((/** @type {unknown} */ error) => {
      fail(
        `Could not load the API document: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
})();
