/** `AgentsTest`: fakes the agent list (no Hermes probed) and records how many times it was read. */
import { Effect, Layer, Ref } from "effect"
import type { AgentsList } from "../../domain/agents.ts"
import { Agents } from "./Agents.ts"

/** `agents` as the list, every time; `reads` counts the lists asked for. */
export const AgentsTest = (agents: AgentsList["agents"], reads?: Ref.Ref<number>) =>
  Layer.succeed(Agents, {
    list: Effect.as(reads === undefined ? Effect.void : Ref.update(reads, (n) => n + 1), { agents })
  })
