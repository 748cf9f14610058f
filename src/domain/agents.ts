/**
 * The agent ids a caller can name. `hermes` and `hermes/<profile>` are the configured Hermes
 * profiles; `pi` is listed by `agents_list` (as `runnable: false`) but the bridge delegates to
 * Hermes only, so naming it is `bridge.unknown_agent` (404, not worth retrying) with a message that
 * says so rather than calling it unknown.
 */
import { Schema } from "effect"
import { UnknownAgent } from "./errors.ts"

/** Listed by `agents_list`, never runnable. */
export const NOT_RUNNABLE_AGENT = "pi"

/** The failure for an agent id that names no configured profile. */
export const unknownAgent = (agent: string): UnknownAgent =>
  new UnknownAgent({
    message:
      agent === NOT_RUNNABLE_AGENT
        ? `agent "pi" is listed by agents_list but is not runnable (runnable: false): the bridge runs and teaches Hermes only; use "hermes" or "hermes/<profile>"`
        : `unknown agent "${agent}": use "hermes" or "hermes/<profile>" for a configured profile`
  })

/**
 * The optional Hermes features of a profile (false: it lacks it; null: not known yet), as the
 * Hermes client detects them (`hermes/client/features.ts`, `optionalFeatures`).
 */
export const HermesFeaturesRow = Schema.Struct({
  steer: Schema.Boolean,
  event_replay: Schema.NullOr(Schema.Boolean),
  durable_idempotency: Schema.Boolean
})

/** `agents_list`: one row per configured profile, then `pi` (listed, never runnable). */
export const AgentRow = Schema.Union(
  Schema.Struct({
    name: Schema.String,
    agent_id: Schema.String,
    health: Schema.Literal("ok", "down", "unauthorized"),
    keyed: Schema.Boolean,
    model_id: Schema.NullOr(Schema.String),
    // Added beside the seed's fields; null when the profile's capabilities could not be read.
    hermes_features: Schema.NullOr(HermesFeaturesRow)
  }),
  Schema.Struct({ name: Schema.Literal("pi"), runnable: Schema.Literal(false) })
)
export const AgentsList = Schema.Struct({ agents: Schema.Array(AgentRow) })
export type AgentsList = typeof AgentsList.Type
