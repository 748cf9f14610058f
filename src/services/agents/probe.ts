/**
 * Probes each Hermes profile's health, model id and optional features, cached briefly so a burst of `agents_list` calls
 * costs one round of requests, and bounded so a dead Hermes never holds a list for more than 2 s.
 */
import { Duration, Effect, Option } from "effect"
import { optionalFeatures, type OptionalFeatures } from "../../hermes/client/features.ts"
import type { HermesClientShape, HermesProfile } from "../../hermes/client/HermesClient.ts"

export type AgentHealth = "ok" | "down" | "unauthorized"

export interface ProfileRow {
  readonly name: string
  readonly agent_id: string
  readonly health: AgentHealth
  readonly keyed: boolean
  readonly model_id: string | null
  readonly hermes_features: OptionalFeatures | null
}

const CACHE_TTL = Duration.seconds(5)
const PROBE_BUDGET = Duration.millis(1800)

const probeOne = (hermes: HermesClientShape, p: HermesProfile): Effect.Effect<ProfileRow> => {
  const keyed = Option.isSome(p.key)
  const base = { name: p.agent, agent_id: p.agentId, keyed }
  // The client's own detection (cached by it), so the list says what the client will do.
  const features = keyed
    ? hermes.features(p).pipe(Effect.map(optionalFeatures), Effect.orElseSucceed(() => null))
    : Effect.succeed(null)
  const health = hermes.health(p).pipe(
    Effect.as<AgentHealth>("ok"),
    Effect.catchAll(() => Effect.succeed<AgentHealth>("down"))
  )
  const model = keyed
    ? hermes.models(p).pipe(
        Effect.map((ids) => ({ model: ids[0] ?? null, unauthorized: false })),
        // Hermes's own status: a refused key is "unauthorized", not "down".
        Effect.catchTag("HermesStatus", (f) =>
          Effect.succeed({ model: null, unauthorized: f.status === 401 || f.status === 403 })
        ),
        Effect.catchAll(() => Effect.succeed({ model: null, unauthorized: false }))
      )
    : Effect.succeed({ model: null, unauthorized: false })
  return Effect.all([health, model, features], { concurrency: 3 }).pipe(
    Effect.map(([h, m, f]): ProfileRow => ({
      ...base,
      health: h === "ok" && m.unauthorized ? "unauthorized" : h,
      model_id: m.model,
      hermes_features: f
    })),
    Effect.timeoutTo({
      duration: PROBE_BUDGET,
      onTimeout: (): ProfileRow => ({ ...base, health: "down", model_id: null, hermes_features: null }),
      onSuccess: (r) => r
    })
  )
}

/** An effect that answers the rows of every profile, probed at most once per cache period. */
export const probeProfiles = (hermes: HermesClientShape) =>
  Effect.cachedWithTTL(
    Effect.forEach(hermes.profiles, (p) => probeOne(hermes, p), { concurrency: "unbounded" }),
    CACHE_TTL
  )
