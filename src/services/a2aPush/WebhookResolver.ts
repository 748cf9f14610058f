/**
 * DNS for webhooks, as a service so the tests can answer what a host resolves to (a name that
 * resolves to a private address, an answer that changes between creation and delivery). The
 * delivery connects to the address this returned and the check passed, never to the name again.
 */
import { lookup } from "node:dns/promises"
import { Context, Data, Effect, Layer } from "effect"

export class ResolveFailed extends Data.TaggedError("ResolveFailed")<{ readonly host: string; readonly reason: string }> {}

export interface WebhookResolverShape {
  /** Every address the host name resolves to now (IPv4 and IPv6), as text. */
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>, ResolveFailed>
}

export class WebhookResolver extends Context.Tag("agent-bridge/a2aPush/WebhookResolver")<WebhookResolver, WebhookResolverShape>() {}

export const WebhookResolverLive = Layer.succeed(WebhookResolver, {
  resolve: (host) =>
    Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: (e) => new ResolveFailed({ host, reason: e instanceof Error ? e.message : String(e) })
    }).pipe(Effect.map((answers) => answers.map((a) => a.address)))
})

/**
 * `WebhookResolverTest(answers)`: each host's addresses from a mutable map the test may change
 * between calls (a host absent is "not found"); records every host asked in `asked`.
 */
export const WebhookResolverTest = (answers: Map<string, ReadonlyArray<string>>, asked: Array<string> = []) =>
  Layer.succeed(WebhookResolver, {
    resolve: (host) =>
      Effect.suspend(() => {
        asked.push(host)
        const found = answers.get(host.toLowerCase())
        return found === undefined ? Effect.fail(new ResolveFailed({ host, reason: "not found" })) : Effect.succeed(found)
      })
  })
