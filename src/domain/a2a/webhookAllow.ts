/**
 * `a2a.webhook_allow`: where push notifications may go. Each entry is one of
 *
 * - a URL prefix, `https://hooks.example.com/a2a/`: the webhook URL must start with it;
 * - a host name, `hooks.example.com`, or every name under a domain, `*.example.com`;
 * - an address or a CIDR block, `203.0.113.7`, `203.0.113.0/24`, `2001:db8:1::/48`: every address
 *   the webhook's host resolves to must be in it.
 *
 * Being allowed is not enough: every address the host resolves to must also be public
 * (`addresses.ts`). The one exception is loopback, reachable only when an address or CIDR entry
 * names it (`127.0.0.1`, `::1`): a test's receiver, never a host name that happens to resolve there.
 * Private, link-local, metadata, unspecified, multicast and reserved addresses are never reached.
 */
import { type Address, classify, inPrefix, parseAddress } from "./addresses.ts"

export type AllowRule =
  | { readonly _tag: "Prefix"; readonly prefix: string }
  | { readonly _tag: "Host"; readonly host: string; readonly subdomains: boolean }
  | { readonly _tag: "Cidr"; readonly network: Address; readonly bits: number }

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** One entry of the list, or the sentence saying why it is not one. */
export const parseAllowRule = (entry: string): AllowRule | string => {
  const text = entry.trim()
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text)
      if (url.username !== "" || url.password !== "") return `${entry}: a URL prefix may not carry user or password`
      return { _tag: "Prefix", prefix: url.href }
    } catch {
      return `${entry}: not a URL`
    }
  }
  const slash = text.indexOf("/")
  const addressText = slash === -1 ? text : text.slice(0, slash)
  const address = parseAddress(addressText)
  if (address !== undefined) {
    const max = address.family === 4 ? 32 : 128
    const bits = slash === -1 ? max : Number(text.slice(slash + 1))
    if (!Number.isInteger(bits) || bits < 0 || bits > max || (slash !== -1 && !/^\d+$/.test(text.slice(slash + 1)))) return `${entry}: the prefix length must be 0 to ${max}`
    return { _tag: "Cidr", network: address, bits }
  }
  const subdomains = text.startsWith("*.")
  const host = (subdomains ? text.slice(2) : text).toLowerCase().replace(/\.$/, "")
  if (!HOST.test(host)) return `${entry}: not a URL prefix, a host name, an address or a CIDR block`
  return { _tag: "Host", host, subdomains }
}

const hostMatches = (rule: Extract<AllowRule, { _tag: "Host" }>, hostname: string) => {
  const h = hostname.toLowerCase().replace(/\.$/, "")
  return rule.subdomains ? h.endsWith(`.${rule.host}`) : h === rule.host
}

/** Whether the URL itself (before any address is known) is named by a prefix or host entry. */
export const urlNamed = (rules: ReadonlyArray<AllowRule>, url: URL): boolean =>
  rules.some((r) => (r._tag === "Prefix" ? url.href.startsWith(r.prefix) : r._tag === "Host" ? hostMatches(r, url.hostname) : false))

const addressNamed = (rules: ReadonlyArray<AllowRule>, address: Address): boolean =>
  rules.some((r) => r._tag === "Cidr" && inPrefix(address, r.network, r.bits))

/**
 * Whether a webhook at `url` may be reached at `address` (one of its host's addresses): `undefined`
 * when it may, else the reason. Both the URL and the address are checked, at creation and again at
 * each delivery, on the address the connection is then made to.
 */
export const refusalOf = (rules: ReadonlyArray<AllowRule>, url: URL, address: Address): string | undefined => {
  const kind = classify(address)
  if (kind === "loopback") {
    return addressNamed(rules, address) ? undefined : "it resolves to a loopback address, which only an address entry of a2a.webhook_allow (127.0.0.1, ::1) allows"
  }
  if (kind !== "public") return `it resolves to a ${kind.replace("_", "-")} address, which push notifications never reach`
  return urlNamed(rules, url) || addressNamed(rules, address) ? undefined : "it is not in a2a.webhook_allow"
}
