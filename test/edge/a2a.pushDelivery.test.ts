/**
 * One push notification's POST (`deliver.ts`) against receivers that misbehave (issue 37): a
 * connect that fails inside `connect()` itself, a header value Node refuses. Each is a failed
 * attempt with its reason, never an error thrown or emitted past the delivery.
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { type Notification, postNotification } from "../../src/services/a2aPush/deliver.ts"
import type { WebhookTarget } from "../../src/services/a2aPush/webhookCheck.ts"

const notification: Notification = { deliveryId: "pn_1", body: "{}", token: "tok", authScheme: "", authCredentials: "" }
const post = (target: WebhookTarget, n: Notification = notification, timeoutMs = 5_000) =>
  Effect.runPromise(Effect.either(postNotification(target, n, "0", timeoutMs)))

describe("a push POST that cannot be made", () => {
  it("a connect that fails at once (ENETUNREACH, right after the pinned lookup of a host name) is a failed attempt", async () => {
    // A multicast address: Linux refuses a TCP connect to it inside connect() (no packet is sent).
    // Checked webhooks never point there; it stands for a public address with no route.
    const sent = await post({ url: new URL("http://hooks.example/hook"), address: "224.0.0.1", family: 4 })
    expect(Either.isLeft(sent)).toBe(true)
    if (Either.isLeft(sent)) expect(sent.left.reason).toContain("ENETUNREACH")
  }, 20_000)
})
