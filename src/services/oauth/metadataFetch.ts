/**
 * The one outgoing request of the authorization server: a client's Client ID Metadata Document
 * (its `client_id` is the HTTPS URL of that JSON). `oidc-provider` fetches it through its `fetch`
 * option; this is that fetch, behind the webhooks' SSRF guard (`a2aPush/webhookCheck.ts`'s rules):
 * https only, no user or password, never a metadata host, every address the host resolves to
 * checked now (public only; loopback and other ranges only when `oauth.client_metadata_allow`
 * names them, as `a2a.webhook_allow` does), and the connection made to the checked address (a DNS
 * answer that changes afterwards is never used; TLS still verifies the URL's host name). No
 * redirect is followed; the answer is bounded in bytes and time.
 */
import { Effect, Runtime } from "effect"
import https from "node:https"
import type { LookupFunction } from "node:net"
import { type Address, formatAddress, isMetadataHost, parseAddress } from "../../domain/a2a/addresses.ts"
import { type AllowRule, refusalOf } from "../../domain/a2a/webhookAllow.ts"
import { WebhookResolver } from "../a2aPush/WebhookResolver.ts"
import { classify } from "../../domain/a2a/addresses.ts"

export const METADATA_MAX_BYTES = 64 * 1024
const DEADLINE_MS = 5000

export class MetadataRefused extends Error {}

/** The checked address to connect to, or the reason the URL may not be fetched. */
export const checkMetadataUrl = (text: string, rules: ReadonlyArray<AllowRule>) =>
  Effect.gen(function* () {
    const url = URL.canParse(text) ? new URL(text) : undefined
    if (url === undefined) return yield* Effect.fail(new MetadataRefused("a client id must be an absolute URL"))
    if (url.protocol !== "https:") return yield* Effect.fail(new MetadataRefused("a client metadata document is fetched over https only"))
    if (url.username !== "" || url.password !== "") return yield* Effect.fail(new MetadataRefused("a client id may not carry a user or password"))
    const host = url.hostname.replace(/^\[|\]$/g, "")
    if (isMetadataHost(host)) return yield* Effect.fail(new MetadataRefused(`${host} is a metadata service`))
    const literal = parseAddress(host)
    const addresses: ReadonlyArray<Address> = literal !== undefined
      ? [literal]
      : yield* Effect.flatMap(WebhookResolver, (r) => r.resolve(host)).pipe(
        Effect.mapError((e) => new MetadataRefused(`${host} does not resolve (${e.reason})`)),
        Effect.map((texts) => texts.flatMap((t) => parseAddress(t) ?? []))
      )
    if (addresses.length === 0) return yield* Effect.fail(new MetadataRefused(`${host} resolves to no address`))
    for (const address of addresses) {
      // No list: any public address. A list: the webhook rules (loopback only by an address entry).
      const why = rules.length === 0
        ? (classify(address) === "public" ? undefined : `it resolves to a ${classify(address).replace("_", "-")} address`)
        : refusalOf(rules, url, address)
      if (why !== undefined) return yield* Effect.fail(new MetadataRefused(`${text} may not be fetched: ${why} (oauth.client_metadata_allow)`))
    }
    const chosen = addresses[0]!
    return { url, address: formatAddress(chosen), family: chosen.family }
  })

/** A GET of the checked address, as a web `Response` (what the provider's `fetch` returns). */
const getChecked = (target: { url: URL; address: string; family: 4 | 6 }, signal: AbortSignal | undefined, ca: string | undefined) =>
  new Promise<Response>((resolve, reject) => {
    const lookup: LookupFunction = (_host, options, callback) => {
      setImmediate(() => {
        if (typeof options === "object" && options.all === true) {
          ;(callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }])
        } else callback(null, target.address, target.family)
      })
    }
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS)
    const req = https.request(target.url, {
      method: "GET",
      headers: { accept: "application/json" },
      lookup,
      agent: false,
      ...(ca === undefined ? {} : { ca }),
      ...(signal === undefined ? {} : { signal })
    }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > METADATA_MAX_BYTES) req.destroy(new Error(`the document is over ${METADATA_MAX_BYTES} bytes`))
        else chunks.push(chunk)
      })
      res.on("error", (e) => { clearTimeout(deadline); reject(e) })
      res.on("end", () => {
        clearTimeout(deadline)
        const headers = new Headers()
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v)
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers }))
      })
    })
    req.on("error", (e) => { clearTimeout(deadline); reject(e) })
    req.end()
  })

/**
 * The provider's `fetch`: every URL checked first (a refusal is a failed fetch, which the provider
 * answers `invalid_client`). `ca`: an extra trusted certificate (tests' local HTTPS server only).
 */
export const guardedFetch = (runtime: Runtime.Runtime<WebhookResolver>, rules: ReadonlyArray<AllowRule>, ca?: string) =>
  async (url: string | URL, options?: { signal?: AbortSignal }): Promise<Response> => {
    const target = await Runtime.runPromise(runtime)(Effect.either(checkMetadataUrl(String(url), rules)))
    if (target._tag === "Left") throw target.left
    return getChecked(target.right, options?.signal, ca)
  }
