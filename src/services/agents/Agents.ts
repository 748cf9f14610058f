/**
 * `agents_list`: one row per configured Hermes profile (health, keyed, model id) plus Pi, which is
 * not runnable. Health and model come from Hermes with a short cache and never block a list for more
 * than 2 s.
 */
import { Context, Effect, Layer } from "effect"
import { NOT_RUNNABLE_AGENT } from "../../domain/agents.ts"
import type { AgentsList } from "../../domain/agents.ts"
import { HermesClient } from "../../hermes/client/HermesClient.ts"
import { probeProfiles } from "./probe.ts"

export class Agents extends Context.Tag("agent-bridge/Agents")<Agents, { readonly list: Effect.Effect<AgentsList> }>() {
  static readonly list = Effect.flatMap(Agents, (a) => a.list)
}

/** The production Agents: the configured profiles probed through the HermesClient, plus Pi. */
export const AgentsLive = Layer.effect(
  Agents,
  Effect.gen(function* () {
    const hermes = yield* HermesClient
    const probe = yield* probeProfiles(hermes)
    return { list: Effect.map(probe, (agents) => ({ agents: [...agents, { name: NOT_RUNNABLE_AGENT, runnable: false as const }] })) }
  })
)
