/**
 * The daemon's log of a run's life, one info line at each end: when the bridge starts following it
 * (just started, or picked up again after a restart) and when it ends, with its status and how long
 * it lasted. The texts are the operator's, so they name the client, the agent and both run ids.
 */
import { Clock, Effect } from "effect"
import type { RunRecord } from "./Ledger.ts"

const ids = (run: RunRecord) => ({ run_id: run.runId, hermes_run_id: run.hermesRunId, client: run.client, agent: run.agent })

export const logRunFollowed = (run: RunRecord, resumed: boolean) =>
  Effect.logInfo(resumed ? "run picked up again" : "run started").pipe(Effect.annotateLogs({ ...ids(run), status: run.status }))

export const logRunEnded = (run: RunRecord) =>
  Effect.gen(function* () {
    const end = run.endedAt ?? (yield* Clock.currentTimeMillis)
    yield* Effect.logInfo("run ended").pipe(
      Effect.annotateLogs({
        ...ids(run),
        status: run.status,
        duration_ms: Math.max(0, end - run.createdAt),
        ...(run.error === null ? {} : { error: run.error.slice(0, 200) })
      })
    )
  })
