/**
 * Whether node's parser (llhttp) takes a request with these headers for an upgrade (`Upgrade`
 * with `Connection: upgrade`), and so stops reading the connection at its head: what the client
 * sent after it in the same read is handed to an `upgrade` listener, and dropped by a server
 * that has none. Such a request is answered, then its connection closed: kept open, the next
 * answer would go to a request sent after the dropped ones, and a pipelining client would take
 * it for a dropped one's.
 *
 * @example
 * asksUpgrade({ upgrade: "websocket", connection: "keep-alive, Upgrade" }); // true
 */
export function asksUpgrade(headers: {
  readonly upgrade?: string | undefined;
  readonly connection?: string | undefined;
}): boolean {
  // As node's parser (llhttp) reads them: an `Upgrade` value that is not blank, and a
  // `Connection` token `upgrade` with spaces or tabs around it (`trim()` would also take a
  // no-break space, which makes it another token to node). One case reads differently: llhttp
  // takes `upgrade` followed by a tab for another token, and node hands over the header's value
  // with that tab trimmed. Closing after such a request is early, never an answer out of turn.
  const upgrade = headers.upgrade;
  if (upgrade === undefined || /^[ \t]*$/.test(upgrade)) return false;
  return headers.connection?.split(",").some((t) => /^[ \t]*upgrade[ \t]*$/i.test(t)) ?? false;
}
