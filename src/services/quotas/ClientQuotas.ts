/**
 * Per-client quotas (`domain/limits.ts`, config section `limits`): the numbers, and the one count
 * that lives in this process, the event streams each client holds open here. What is stored
 * (memory notes and their bytes, push configs) is counted by its table's owner in the same
 * transaction as the write, with these numbers.
 *
 * A stream takes a slot before it starts (`openStream`) and gives it back when it ends, however it
 * ends (its answer, the client gone, shutdown); a client at its quota is refused with
 * `bridge.quota_exceeded` and nothing of the stream starts, while every other client keeps its own.
 */
import { Context, Effect, Layer, Option } from "effect"
import { QuotaExceeded } from "../../domain/errors.ts"
import { CLIENT_QUOTA_DEFAULTS, type ClientQuotaKey, type ClientQuotaLimits } from "../../domain/limits.ts"

export interface ClientQuotasShape {
  readonly limits: ClientQuotaLimits
  /**
   * Takes one of `client`'s open-stream slots (`what`: the kind of stream, for the message), or
   * fails with `QuotaExceeded`. The answer gives the slot back; it does so once however often it runs.
   */
  readonly openStream: (client: string, what: string) => Effect.Effect<Effect.Effect<void>, QuotaExceeded>
  /** The streams `client` holds open here now. */
  readonly openStreams: (client: string) => Effect.Effect<number>
}

export class ClientQuotas extends Context.Tag("agent-bridge/ClientQuotas")<ClientQuotas, ClientQuotasShape>() {}

/** The refusal of one quota: what, how many, and the key that sets it. */
export const quotaExceeded = (key: ClientQuotaKey, limit: number, what: string) =>
  new QuotaExceeded({ message: `${what}: this client is at its quota of ${limit} (limits.${key})` })

export const makeClientQuotas = (limits: ClientQuotaLimits): ClientQuotasShape => {
  const open = new Map<string, number>()
  const give = (client: string) => {
    const n = (open.get(client) ?? 0) - 1
    if (n <= 0) open.delete(client)
    else open.set(client, n)
  }
  return {
    limits,
    openStream: (client, what) =>
      Effect.suspend(() => {
        const n = open.get(client) ?? 0
        if (n >= limits.open_streams_per_client) {
          return Effect.fail(quotaExceeded("open_streams_per_client", limits.open_streams_per_client, `no more open streams (${what})`))
        }
        open.set(client, n + 1)
        let given = false
        return Effect.succeed(Effect.sync(() => {
          if (given) return
          given = true
          give(client)
        }))
      }),
    openStreams: (client) => Effect.sync(() => open.get(client) ?? 0)
  }
}

/** The quotas of `limits` (the configuration's `limits` section; a test's, the defaults for what it leaves out). */
export const ClientQuotasFor = (limits: Partial<ClientQuotaLimits> = {}) =>
  Layer.sync(ClientQuotas, () => makeClientQuotas({ ...CLIENT_QUOTA_DEFAULTS, ...limits }))

/** The quota numbers where the service may be absent (a store built alone in a test): the defaults then. */
export const quotaLimits: Effect.Effect<ClientQuotaLimits> = Effect.map(
  Effect.serviceOption(ClientQuotas),
  Option.match({ onNone: () => CLIENT_QUOTA_DEFAULTS, onSome: (q) => q.limits })
)
