/** A node answer for a scripted `fetch`: status, JSON body, extra headers. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/** The ledger info of a chain 4 node with tip `tip` and oldest block `oldest`. */
export const ledger = (tip: number | bigint, oldest: number | bigint = 0) =>
  json(200, {
    chain_id: 4,
    epoch: "1",
    ledger_version: "1",
    oldest_ledger_version: "0",
    ledger_timestamp: "1",
    block_height: String(tip),
    oldest_block_height: String(oldest),
  });

/** A complete block of two transactions (metadata, one script call) at `firstVersion`. */
export const block = (height: number, epoch: number, firstVersion: number) =>
  json(200, {
    block_height: String(height),
    block_hash: "0x1",
    block_timestamp: String(1_000_000 + height),
    first_version: String(firstVersion),
    last_version: String(firstVersion + 1),
    transactions: [
      { type: "block_metadata_transaction", version: String(firstVersion), epoch: String(epoch) },
      {
        type: "user_transaction",
        version: String(firstVersion + 1),
        gas_unit_price: "100",
        gas_used: "1",
        payload: { type: "script_payload" },
      },
    ],
  });

/** A gas schedule whose minimum gas unit price is `price`. */
export const gasSchedule = (price = 100) =>
  json(200, {
    data: {
      feature_version: "1",
      entries: [
        { key: "txn.min_price_per_gas_unit", val: String(price) },
        { key: "txn.max_price_per_gas_unit", val: "10000000000" },
      ],
    },
  });

/** The height of a `/v1/blocks/by_height/{h}` URL, or undefined for another route. */
export const heightOf = (url: URL) => {
  const m = /\/v1\/blocks\/by_height\/(\d+)$/.exec(url.pathname);
  return m ? Number(m[1]) : undefined;
};

/** A promise that rejects with the signal's reason when it aborts (a request left hanging). */
export const hang = (signal: AbortSignal | null | undefined) =>
  new Promise<never>((_, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
