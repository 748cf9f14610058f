/**
 * `CapabilitiesTest`: fakes each agent's capabilities from a fixed table (no config.yaml read, no
 * Hermes asked); an agent not in the table is `bridge.unknown_agent`. Records the agents asked for.
 */
import { Effect, Layer, Ref } from "effect"
import { UnknownAgent } from "../../domain/errors.ts"
import type { AgentCapabilities } from "../../domain/capabilities.ts"
import { Capabilities } from "./Capabilities.ts"

export const CapabilitiesTest = (byAgent: Readonly<Record<string, AgentCapabilities>>, asked?: Ref.Ref<ReadonlyArray<string>>) =>
  Layer.succeed(Capabilities, {
    forAgent: (agent) =>
      Effect.zipRight(
        asked === undefined ? Effect.void : Ref.update(asked, (xs) => [...xs, agent]),
        Object.hasOwn(byAgent, agent) ? Effect.succeed(byAgent[agent]!) : Effect.fail(new UnknownAgent({ message: `no agent '${agent}'` }))
      )
  })
