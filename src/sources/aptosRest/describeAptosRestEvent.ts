import type { AptosRestEvent } from "./options.js";

function errorText(error: { shortMessage: string; details: string | undefined }): string {
  return error.details ? `${error.shortMessage} (${error.details})` : error.shortMessage;
}

/**
 * One human-readable line for an {@link AptosRestEvent} (for logs and the CLI).
 *
 * @example
 * aptosRest(url, { onEvent: (e) => logger.info(e, describeAptosRestEvent(e)) });
 */
export function describeAptosRestEvent(event: AptosRestEvent): string {
  switch (event.type) {
    case "started":
      return `following chain ${event.chainId} at ${event.url}: tip ${event.tip}, oldest ${event.oldest}, starting at ${event.from}`;
    case "retrying":
      return `retrying in ${event.delayMs} ms (attempt ${event.attempt}): ${errorText(event.error)}`;
    case "unreachable":
      return `node unusable: ${event.failures} requests in a row failed, last: ${errorText(event.error)}`;
    case "rate_limited":
      return `the node is rate-limiting: HTTP ${event.status} with Retry-After from ${event.url}; waiting ${event.delayMs} ms before asking again (no new block meanwhile)`;
    case "recovered":
      return `node back after ${event.downMs} ms (${event.failures} failed requests)`;
    case "pruned_skip":
      return `heights ${event.from}..${event.to - 1n} were pruned by the node; skipping to ${event.to}`;
    case "tip_behind":
      return `the node's tip went back to height ${event.tip}, below height ${event.height} already read: waiting for it to pass ${event.height} again (a node restored from an older snapshot, or a lagging node behind a load balancer?)`;
    case "block_unavailable":
      return `block ${event.height}: ${event.status} for ${Math.round(event.forMs / 1000)} s while the ledger is at ${event.tip}: ${event.status === 404 ? "the node says it has the height but does not serve it (a lagging node behind a load balancer?); still asking" : "pruned, but the node's oldest height is not above it, so there is nothing to skip to; still asking"}`;
    case "caught_up":
      return `caught up at height ${event.height} (${event.blocks} blocks)`;
    case "min_gas_unit_price":
      return event.value === undefined
        ? `no gas schedule on the node; epoch ${event.epoch} uses the configured minimum gas unit price`
        : `minimum gas unit price ${event.value} in epoch ${event.epoch} (from height ${event.height})`;
    case "min_gas_unit_price_pending":
      return `the gas schedule read of epoch ${event.epoch} was given up without an answer (${event.failures} failed attempts): its blocks go on from height ${event.height} with ${event.using === undefined ? "the configured minimum gas unit price" : `the previous minimum ${event.using}`}, and it is asked again now and then`;
  }
}
