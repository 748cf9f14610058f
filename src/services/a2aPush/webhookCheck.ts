/**
 * The webhook URL check, at creation and again before each delivery (docs/REFERENCE.md, "Push
 * notifications"): the URL's shape, `a2a.webhook_allow`, and every address its host resolves to
 * *now*. The answer is the address to connect to, so the connection goes where the check looked
 * (a DNS answer that changes afterwards is never used).
 */
import { Data, Effect } from "effect"
import { type Address, classify, formatAddress, isMetadataHost, parseAddress } from "../../domain/a2a/addresses.ts"
import { type AllowRule, refusalOf } from "../../domain/a2a/webhookAllow.ts"
import { WebhookResolver } from "./WebhookResolver.ts"

/** `off`: the allow list is empty (push is not offered); `refused`: this URL may not be reached. */
export class WebhookRefused extends Data.TaggedError("WebhookRefused")<{ readonly kind: "off" | "refused"; readonly reason: string }> {}

export interface WebhookTarget {
  readonly url: URL
  /** The checked address the connection is made to. */
  readonly address: string
  readonly family: 4 | 6
}

export const URL_MAX_CHARS = 2048

const refuse = (reason: string) => new WebhookRefused({ kind: "refused", reason })

export const checkWebhook = (text: string, rules: ReadonlyArray<AllowRule>): Effect.Effect<WebhookTarget, WebhookRefused, WebhookResolver> =>
  Effect.gen(function* () {
    if (rules.length === 0) return yield* new WebhookRefused({ kind: "off", reason: "this bridge sends no push notifications (a2a.webhook_allow is empty)" })
    if (text.length > URL_MAX_CHARS) return yield* refuse(`the webhook URL is over ${URL_MAX_CHARS} characters`)
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return yield* refuse("the webhook URL is not an absolute URL")
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return yield* refuse(`the webhook URL must be http or https, not ${url.protocol}`)
    if (url.username !== "" || url.password !== "") return yield* refuse("the webhook URL may not carry a user or password (use authentication)")
    const host = url.hostname
    if (isMetadataHost(host)) return yield* refuse(`the webhook URL names ${host}, a metadata service, which push notifications never reach`)
    const literal = parseAddress(host)
    const addresses: ReadonlyArray<Address> = literal !== undefined
      ? [literal]
      : yield* Effect.flatMap(
        Effect.mapError(Effect.flatMap(WebhookResolver, (r) => r.resolve(host)), (e) => refuse(`the webhook's host ${host} does not resolve (${e.reason})`)),
        (texts) => Effect.succeed(texts.flatMap((t) => parseAddress(t) ?? []))
      )
    if (addresses.length === 0) return yield* refuse(`the webhook's host ${host} resolves to no address`)
    // Every answer is checked, not just the one used: a name with one private answer is refused whole.
    for (const address of addresses) {
      const why = refusalOf(rules, url, address)
      if (why !== undefined) return yield* refuse(`the webhook URL is refused: ${literal === undefined ? `${host} resolves to ${formatAddress(address)}, and ` : ""}${why}`)
    }
    const chosen = addresses[0]!
    return { url, address: formatAddress(chosen), family: chosen.family }
  })

/** For the logs and the tests: what kind of address the target is. */
export const targetKind = (t: WebhookTarget) => classify(parseAddress(t.address)!)
