/**
 * Who follows the runs: how the run service gets its supervisor. The single daemon (SQLite, or
 * PostgreSQL with `cluster.port: 0`) keeps a FiberMap of its own (`RunSupervisor.ts`); replicas on
 * one PostgreSQL database share the followers through `@effect/cluster` (`clusterFollowers.ts`).
 * Absent from the context (test harnesses), the run service uses the FiberMap.
 */
import { Context, type Effect, Layer, type Scope } from "effect"
import { makeRunSupervisor, type RunSupervisor } from "./RunSupervisor.ts"

export interface RunFollowersShape {
  readonly make: <E>(
    followOnce: (runId: string, resume: boolean) => Effect.Effect<void, E>
  ) => Effect.Effect<RunSupervisor, never, Scope.Scope>
}

export class RunFollowers extends Context.Tag("agent-bridge/RunFollowers")<RunFollowers, RunFollowersShape>() {}

/** This daemon alone follows every run it starts or finds unfinished. */
export const localFollowers: RunFollowersShape = { make: makeRunSupervisor }
export const RunFollowersLocal = Layer.succeed(RunFollowers, localFollowers)
