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
  /** Called with each "Try it out" answer before it is shown; may replace its body. */
  responseInterceptor: (
    response: SwaggerUiResponse,
  ) => SwaggerUiResponse | Promise<SwaggerUiResponse>;
  /** Swagger UI plugins: here, components wrapped around its own. */
  plugins: { wrapComponents: Record<string, unknown> }[];
}

/** The part of React that Swagger UI hands its plugins (`system.React`). */
interface SwaggerUiReact {
  createElement(type: unknown, props: object | null, ...children: unknown[]): unknown;
}

/** An answer as Swagger UI keeps it: headers by lower-case name; the body read as text, or a Blob. */
interface SwaggerUiResponse {
  headers?: Record<string, string | string[]>;
  text: unknown;
  data: unknown;
}

/** Swagger UI's bundle: a function that starts the UI, with its presets. */
declare const SwaggerUIBundle: ((options: SwaggerUiOptions) => unknown) & {
  presets: { apis: unknown };
};

interface Window {
  /** The running Swagger UI, for debugging from the console. */
  ui?: unknown;
}
