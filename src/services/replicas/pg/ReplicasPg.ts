/**
 * `Replicas` over a cluster's PostgreSQL records (docs/ARCHITECTURE.md, "Who follows a run"):
 *
 * - the runners: `cluster_runners` (`SqlRunnerStorage`: one row per runner, its address, its
 *   `Runner` JSON, `healthy`, and `last_heartbeat`, refreshed with the shard locks every
 *   `CLUSTER_TIMING.lockRefreshMs`). A runner is live while its heartbeat is newer than the lock
 *   expiry: the same test the cluster's `getRunners` makes, in SQL, on the server's clock;
 * - a run's follower: its shard's assigned runner (`shards.ts`), and whether that shard's advisory
 *   lock (key 1000000 + shard, the default group's) is held now, from `pg_locks`.
 *
 * Read-only: the tables are the cluster's, created by it (under the migration lock) when a runner
 * starts; before any did (the CLI on a new database) there is no table and no runner.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { CLUSTER_TIMING } from "../../../domain/limits.ts"
import { type ReplicaInfo, Replicas, type RunFollowerInfo } from "../Replicas.ts"
import { assignShards, decodeRunner, shardOfRun } from "../shards.ts"

/** The default shard group's advisory lock keys are this plus the shard (`SqlRunnerStorage`). */
const LOCK_BASE = 1_000_000
const EXPIRY_S = Math.ceil(CLUSTER_TIMING.lockExpirationMs / 1000)

interface RunnerRow {
  readonly address: string
  readonly runner: string
  readonly healthy: boolean
  readonly age_ms: number
  readonly fresh: boolean
}

/**
 * `self`: this daemon's runner address and replica id (none for the CLI, which is no runner).
 */
export const makeReplicasPg = (self: Option.Option<{ readonly address: string; readonly replicaId: string }>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const selfAddress = Option.map(self, (s) => s.address)
    const isSelf = (address: string) => Option.contains(selfAddress, address)

    const runnerRows = Effect.gen(function* () {
      const [exists] = yield* sql<{ present: boolean }>`SELECT to_regclass('cluster_runners') IS NOT NULL AS present`
      if (exists?.present !== true) return [] as ReadonlyArray<RunnerRow>
      return yield* sql<RunnerRow>`
        SELECT address, runner, healthy,
               (EXTRACT(EPOCH FROM (NOW()::timestamp - last_heartbeat)) * 1000)::float8 AS age_ms,
               last_heartbeat > NOW()::timestamp - make_interval(secs => ${EXPIRY_S}) AS fresh
        FROM cluster_runners ORDER BY address`
    })

    const list = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* runnerRows
      const out: Array<ReplicaInfo> = rows.map((r) => ({
        address: r.address,
        replicaId: isSelf(r.address) ? Option.getOrThrow(self).replicaId : null,
        healthy: Boolean(r.healthy),
        lastHeartbeatMs: Math.round(now - Math.max(0, Number(r.age_ms))),
        live: Boolean(r.fresh) && Boolean(r.healthy),
        self: isSelf(r.address)
      }))
      return out.sort((a, b) => Number(b.live) - Number(a.live) || a.address.localeCompare(b.address))
    })

    const heldShards = Effect.map(
      sql<{ shard: number }>`
        SELECT (objid::bigint - ${LOCK_BASE})::int AS shard FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = 0 AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND objid::bigint BETWEEN ${LOCK_BASE + 1} AND ${LOCK_BASE + CLUSTER_TIMING.shards}`,
      (rows) => new Set(rows.map((r) => Number(r.shard)))
    )

    const followersOf = (runIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        if (runIds.length === 0) return new Map<string, RunFollowerInfo>()
        const rows = yield* runnerRows
        const live = rows.filter((r) => r.fresh && r.healthy).flatMap((r) => {
          const runner = decodeRunner(r.runner)
          return runner === null ? [] : [runner]
        })
        const assigned = assignShards(live)
        const held = yield* heldShards
        return new Map(runIds.map((id): [string, RunFollowerInfo] => {
          const shard = shardOfRun(id)
          const address = assigned[shard - 1] ?? null
          return [id, { address, self: address !== null && isSelf(address), held: held.has(shard), shard }]
        }))
      })

    return Replicas.of({ clustered: true, list, followersOf })
  })

export const ReplicasPg = (self: Option.Option<{ readonly address: string; readonly replicaId: string }>) =>
  Layer.effect(Replicas, makeReplicasPg(self))
