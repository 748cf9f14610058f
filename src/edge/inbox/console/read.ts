/** The console pages' reads: the queries over the request's database, and the runs filter from a query string. */
import { Effect, Either, Schema } from "effect"
import { RunStatus } from "../../../domain/runs/view.ts"
import { replicasOrSingle } from "../../../services/replicas/Replicas.ts"
import { makeConsoleQueries, MAX_RUNS_LISTED, type RunFilter } from "../../../services/console/queries.ts"

export const readConsole = Effect.map(makeConsoleQueries, (queries) => ({ queries }))

/** Runs one listing shows. */
export const RUNS_SHOWN = 200
const isStatus = Schema.is(RunStatus)

/** `?client=&status=&agent=` (empty means any); a status that is not one is a clear refusal. */
export const parseRunFilter = (params: URLSearchParams): Either.Either<RunFilter, string> => {
  const pick = (name: string) => {
    const v = (params.get(name) ?? "").trim()
    return v === "" ? undefined : v.slice(0, 128)
  }
  const status = pick("status")
  if (status !== undefined && !isStatus(status)) return Either.left(`'${status.slice(0, 40)}' is not a run status (${RunStatus.literals.join(", ")}).`)
  return Either.right({ client: pick("client"), status, agent: pick("agent"), limit: Math.min(RUNS_SHOWN, MAX_RUNS_LISTED) })
}

/**
 * The replicas and the followers of the given live runs (a terminal run has no follower). Read
 * through `Replicas`, or the single daemon's answer where nothing provides it.
 */
export const readReplicas = (liveRunIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const replicas = yield* replicasOrSingle
    const [list, followers] = yield* Effect.all([replicas.list, replicas.followersOf(liveRunIds)])
    return { clustered: replicas.clustered, replicas: list, followers }
  })
