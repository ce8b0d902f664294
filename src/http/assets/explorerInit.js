// @ts-check
// The explorer page's own script (`<basePath>/spec/assets/explorer.js`), run in the browser after
// Swagger UI's bundle. It is served as is: scripts/buildBrowserScripts.mjs copies its text into a
// string module at build time, so the handler needs no file system. It takes no data from the
// server: everything it needs is the page's own URL.
(() => {
  const root = /** @type {HTMLElement} */ (document.getElementById("swagger-ui"));
  // The page is `<basePath>/spec`: "." is `<basePath>/`, under any mount prefix.
  const base = new URL(".", window.location.href);

  /** @param {string} message */
  function fail(message) {
    const p = document.createElement("p");
    p.className = "gasdigest-error";
    p.textContent = `Could not load the API document: ${message}`;
    root.appendChild(p);
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
      });
    })
    .catch((/** @type {unknown} */ error) => {
      fail(error instanceof Error ? error.message : String(error));
    });
})();
