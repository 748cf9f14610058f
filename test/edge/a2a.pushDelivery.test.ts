/**
 * One push notification's POST (`deliver.ts`) against receivers that misbehave (issue 37): a
 * connect that fails inside `connect()` itself, a header value Node refuses. Each is a failed
 * attempt with its reason, never an error thrown or emitted past the delivery.
 */
import { Effect, Either, Layer, Redacted } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { attachPush, IssuedSecret, IssuedSecretTest } from "../../src/edge/a2a/pushMethods.ts"
import { CallerTest } from "../../src/request/Caller.ts"
import { PushConfigsTest } from "../../src/services/a2aPush/PushConfigs.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { RunsTest } from "../../src/services/runs/RunsTest.ts"
import { testConfig } from "../support/daemon.ts"
import { describe, expect, it } from "vitest"
import { type Notification, postNotification, standardSignature } from "../../src/services/a2aPush/deliver.ts"
import type { WebhookTarget } from "../../src/services/a2aPush/webhookCheck.ts"
import { documentedVerifier } from "./support/pushReceiver.ts"

const notification: Notification = { deliveryId: "pn_1", body: "{}", token: "tok", authScheme: "", authCredentials: "", signingSecret: Redacted.make("") }
const post = (target: WebhookTarget, n: Notification = notification, timeoutMs = 5_000) =>
  Effect.runPromise(Effect.either(postNotification(target, n, 0, timeoutMs)))

describe("a push POST that cannot be made", () => {
  it("a connect that fails at once (ENETUNREACH, right after the pinned lookup of a host name) is a failed attempt", async () => {
    // A multicast address: Linux refuses a TCP connect to it inside connect() (no packet is sent).
    // Checked webhooks never point there; it stands for a public address with no route.
    const sent = await post({ url: new URL("http://hooks.example/hook"), address: "224.0.0.1", family: 4 })
    expect(Either.isLeft(sent)).toBe(true)
    if (Either.isLeft(sent)) expect(sent.left.reason).toContain("ENETUNREACH")
  }, 20_000)
})

describe("the Standard Webhooks signature", () => {
  // The example of the Standard Webhooks specification: its secret, id, timestamp, body and signature.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
  const timestamp = "1614265330"
  const body = '{"test": 2432232314}'
  const signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

  it("the bridge signs the specification's example as the specification does", () => {
    expect(standardSignature(Redacted.make(secret), id, timestamp, body)).toBe(signature)
  })

  it("the receiver snippet of docs/REFERENCE.md accepts it, and refuses it changed, late, or with another secret", () => {
    const verify = documentedVerifier()
    const headers = { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature }
    expect(verify(secret, headers, body, Number(timestamp))).toBe(true)
    expect(verify(secret, headers, Buffer.from(body), Number(timestamp) + 299)).toBe(true)
    expect(verify(secret, { ...headers, "webhook-signature": `v1,bm9wZQ== ${signature}` }, body, Number(timestamp))).toBe(true)
    expect(verify(secret, headers, body.replace("2432", "2433"), Number(timestamp))).toBe(false)
    expect(verify(secret, headers, body, Number(timestamp) + 301)).toBe(false)
    expect(verify(secret, { ...headers, "webhook-signature": signature.replace("v1,", "v2,") }, body, Number(timestamp))).toBe(false)
    expect(verify("whsec_" + Buffer.from("another key").toString("base64"), headers, body, Number(timestamp))).toBe(false)
    expect(verify(secret, { "webhook-timestamp": timestamp, "webhook-signature": signature }, body, Number(timestamp))).toBe(false)
  })
})

describe("the signing secret of a config a request makes", () => {
  it("is put in the request's IssuedSecret cell (for the route to answer once); a replaced config issues the secret it kept", async () => {
    const cell: IssuedSecret["Type"] = { current: undefined }
    const checked = (secret: string) => ({ id: "c", url: "http://127.0.0.1:9/h", token: "t", tokenGiven: true, authScheme: "", authCredentials: "", signingSecret: Redacted.make(secret) })
    const env = Layer.mergeAll(IssuedSecretTest(cell), PushConfigsTest, WebhookResolverTest(new Map()), AppConfigLive(testConfig()), CallerTest(), RunsTest({}))
    await Effect.runPromise(Effect.gen(function* () {
      const wire = yield* attachPush("run_a", checked("whsec_Zmlyc3Q="))
      expect(Redacted.value(cell.current!)).toBe("whsec_Zmlyc3Q=")
      // The config as the spec shapes it carries no secret.
      expect(JSON.stringify(wire)).not.toContain("Zmlyc3Q")
      cell.current = undefined
      yield* attachPush("run_a", checked("whsec_c2Vjb25k"))
      expect(Redacted.value(cell.current!)).toBe("whsec_Zmlyc3Q=")
    }).pipe(Effect.provide(env)))
  })
})
