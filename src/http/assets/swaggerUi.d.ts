// The globals explorerInit.js uses: what swagger-ui-dist's `swagger-ui-bundle.js` defines on the
// page (the package ships no types), and the `window.ui` handle the script leaves for debugging.

/** The options of Swagger UI the explorer passes (a small part of what Swagger UI takes). */
interface SwaggerUiOptions {
  spec: object;
  dom_id: string;
  validatorUrl: string | null;
  queryConfigEnabled: boolean;
  deepLinking: boolean;
  displayOperationId: boolean;
  docExpansion: "list" | "full" | "none";
  defaultModelsExpandDepth: number;
  presets: unknown[];
  layout: string;
}

/** Swagger UI's bundle: a function that starts the UI, with its presets. */
declare const SwaggerUIBundle: ((options: SwaggerUiOptions) => unknown) & {
  presets: { apis: unknown };
};

interface Window {
  /** The running Swagger UI, for debugging from the console. */
  ui?: unknown;
}
