/**
 * The peer a connection counts against when connections are shared out fairly: its IPv4
 * address, or the /64 prefix of its IPv6 address (one host, or one customer of a provider, is
 * usually given a whole /64, so counting single IPv6 addresses would let one peer take every
 * slot). An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address; a zone
 * (`fe80::1%eth0`) is dropped; `undefined` (a socket already closed) is `"?"`.
 *
 * @example
 * peerKey("::ffff:10.0.0.7"); // "10.0.0.7"
 * peerKey("2001:db8:1:2:aaaa::1"); // "2001:db8:1:2::/64"
 */
export function peerKey(address: string | undefined): string {
  if (address === undefined || address === "") return "?";
  if (!address.includes(":")) return address;
  const bare = address.split("%", 1)[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = bare.split("::", 2);
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const first = groups(head);
  // Only the first four groups matter; groups after "::" fill the end of the eight.
  const missing = 8 - first.length - (tail === undefined ? 0 : hextets(groups(tail)));
  const all = tail === undefined ? first : [...first, ...new Array<string>(missing).fill("0")];
  const prefix = [...all, "0", "0", "0", "0"]
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16).toString(16) : g));
  return `${prefix.join(":")}::/64`;
}

/** How many 16-bit groups `groups` stand for (a dotted IPv4 tail is two). */
function hextets(groups: readonly string[]): number {
  let n = 0;
  for (const g of groups) n += g.includes(".") ? 2 : 1;
  return n;
}
