/**
 * One push notification's POST (docs/REFERENCE.md, "Push notifications"): to the address the check
 * passed (the socket's DNS lookup answers that address, so a name that resolves elsewhere by now is
 * never dialled; TLS still verifies the URL's host name), redirects never followed (a 3xx is a
 * failed attempt), bounded in time.
 *
 * Signed the Standard Webhooks way: `webhook-id` (the delivery id), `webhook-timestamp` (epoch
 * seconds) and `webhook-signature` `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`,
 * keyed by the config's own secret, which the client learned once when it made the config and
 * which no notification carries: it proves the sender and the body. Beside it, A2A's
 * `X-A2A-Notification-Token` and the older `X-A2A-Signature` (`v1=<hex HMAC-SHA256(token,
 * "<timestamp ms>.<body>")>`, kept for receivers that check it; it proves nothing, its key being
 * the token sent in the same request); `X-A2A-Delivery-Id` (also `metadata.bridge.delivery_id` in
 * the body) is the same on every retry of one notification, for the receiver to drop duplicates.
 */
import { createHmac } from "node:crypto"
import http from "node:http"
import https from "node:https"
import type { LookupFunction } from "node:net"
import { Data, Effect, Redacted } from "effect"
import type { WebhookTarget } from "./webhookCheck.ts"

export class PostFailed extends Data.TaggedError("PostFailed")<{ readonly reason: string }> {}

export const PUSH_CONTENT_TYPE = "application/a2a+json"

/** The older signature, keyed by the token (sent in the same request: it proves nothing). */
export const signatureOf = (token: string, timestamp: string, body: string): string =>
  `v1=${createHmac("sha256", token).update(`${timestamp}.${body}`).digest("hex")}`

/** The prefix of a Standard Webhooks secret; the rest is the key, base64. */
export const SECRET_PREFIX = "whsec_"

/** `webhook-signature`'s value: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed by the secret's bytes. */
export const standardSignature = (secret: Redacted.Redacted<string>, id: string, timestampSeconds: string, body: string): string => {
  const key = Buffer.from(Redacted.value(secret).slice(SECRET_PREFIX.length), "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`
}

export interface Notification {
  readonly deliveryId: string
  readonly body: string
  readonly token: string
  readonly authScheme: string
  readonly authCredentials: string
  /** "" (a config made before secrets): no `webhook-*` headers. */
  readonly signingSecret: Redacted.Redacted<string>
}

/** The headers of one attempt made at `timestampMs`. */
export const headersOf = (n: Notification, timestampMs: number): Record<string, string> => {
  const timestamp = String(timestampMs)
  const seconds = String(Math.floor(timestampMs / 1000))
  return {
    "content-type": PUSH_CONTENT_TYPE,
    ...(Redacted.value(n.signingSecret).startsWith(SECRET_PREFIX)
      ? { "webhook-id": n.deliveryId, "webhook-timestamp": seconds, "webhook-signature": standardSignature(n.signingSecret, n.deliveryId, seconds, n.body) }
      : {}),
    "x-a2a-delivery-id": n.deliveryId,
    "x-a2a-timestamp": timestamp,
    "x-a2a-signature": signatureOf(n.token, timestamp, n.body),
    "x-a2a-notification-token": n.token,
    ...(n.authScheme !== "" && n.authCredentials !== "" ? { authorization: `${n.authScheme} ${n.authCredentials}` } : {})
  }
}

/**
 * POSTs to the checked address; answers the status of a 2xx, fails on anything else. Nothing a
 * receiver, a socket or a header value does escapes as a throw or an unheard `error` event: every
 * failure is this attempt's `PostFailed`. `deadlineMs` bounds the whole exchange (connecting,
 * sending, the answer's status line and headers), however slowly the receiver trickles bytes; the
 * answer's body is never read (a 2xx is delivered on its status, and the connection is closed).
 */
export const postNotification = (target: WebhookTarget, n: Notification, timestampMs: number, deadlineMs: number): Effect.Effect<number, PostFailed> =>
  Effect.async<number, PostFailed>((resume, signal) => {
    let settled = false
    let req: http.ClientRequest | undefined
    const settle = (result: Effect.Effect<number, PostFailed>) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      // Whatever is left of the exchange (a body still coming, a request never answered) ends here.
      req?.destroy()
      resume(result)
    }
    const fail = (reason: string) => settle(Effect.fail(new PostFailed({ reason })))
    const deadline = setTimeout(() => fail(`no answer within ${deadlineMs} ms`), deadlineMs)
    // The connection goes to the checked address whatever the resolver would answer now. The answer
    // comes on a later turn, as a real lookup's does: a connect that fails inside connect() itself
    // (ENETUNREACH) destroys the socket there, and answered at once that would emit the socket's
    // `error` before the request had put its listener on it (an uncaught error: the process exits).
    const lookup: LookupFunction = (_host, options, callback) => {
      setImmediate(() => {
        if (typeof options === "object" && options.all === true) {
          ;(callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }])
        } else callback(null, target.address, target.family)
      })
    }
    const client = target.url.protocol === "https:" ? https : http
    const body = Buffer.from(n.body, "utf8")
    try {
      req = client.request(target.url, {
        method: "POST",
        headers: { ...headersOf(n, timestampMs), "content-length": String(body.length) },
        lookup,
        // A connection of its own: a pooled one may have been made to another checked address.
        agent: false,
        signal
      }, (res) => {
        res.on("error", () => undefined)
        const status = res.statusCode ?? 0
        if (status >= 200 && status < 300) settle(Effect.succeed(status))
        else if (status >= 300 && status < 400) fail(`HTTP ${status}: redirects are not followed`)
        else fail(`HTTP ${status}`)
      })
    } catch (e) {
      // A header value Node refuses (a stored config from before values were checked) throws here.
      return fail(e instanceof Error ? e.message : String(e))
    }
    req.on("error", (e) => fail(e.message))
    req.end(body)
    return Effect.sync(() => settle(Effect.fail(new PostFailed({ reason: "interrupted" }))))
  })
