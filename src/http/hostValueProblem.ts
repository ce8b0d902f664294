/**
 * A `Host` field value as RFC 9110 §7.2 defines it: `uri-host [ ":" port ]`, where `uri-host`
 * is an IP literal in brackets (a `%25` zone id allowed, RFC 6874), or a reg-name (IPv4
 * addresses included) of unreserved characters, sub-delims and percent-encoded octets, possibly
 * empty.
 */
const HOST =
  /^(?:\[[0-9A-Za-z._~!$&'()*+,;=:%-]+\]|(?:[0-9A-Za-z._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;

/**
 * Why a `Host` field value must get 400, or `undefined` when it is a host (`host[:port]`, see
 * `HOST` above). The node server asks it of every request with one `Host` field line; the fetch
 * adapter of every request whose `Headers` hold one, because Deno and workerd build
 * `request.url` by pasting the `Host` value before the target, so a value holding `/` or `?`
 * would move the request to another route.
 *
 * @example
 * hostValueProblem("127.0.0.1:8080"); // undefined
 * hostValueProblem("127.0.0.1/v1/estimate_gas_price?"); // "invalid Host header"
 */
export function hostValueProblem(value: string): "invalid Host header" | undefined {
  return HOST.test(value) ? undefined : "invalid Host header";
}
