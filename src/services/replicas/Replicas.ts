/**
 * Which replicas there are and which one follows each live run, for the operator (the console's
 * pages, `agent-bridge runs show`): read-only over `@effect/cluster`'s own records, never a table of
 * ours. On SQLite (or PostgreSQL without a cluster) there is one replica, this daemon, and it
 * follows every run (`ReplicasSingle`); in a cluster the PostgreSQL reader (`pg/ReplicasPg.ts`).
 *
 * Absent from the context (test harnesses that build the edge alone), readers take the single
 * answer under the name "this replica" (`replicasOrSingle`).
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, Effect, Layer, Option } from "effect"

/** One runner as the cluster records it (`cluster_runners`), or this daemon alone. */
export interface ReplicaInfo {
  /** The runner address (`cluster.host:cluster.port`), or the replica's name alone. */
  readonly address: string
  /** `bridge.replica_id` when known: this replica's own; the others' are not recorded by the cluster. */
  readonly replicaId: string | null
  readonly healthy: boolean
  /** Its last heartbeat (epoch ms); a runner is live while this is newer than the lock expiry. */
  readonly lastHeartbeatMs: number
  /** Heartbeat within the lock expiry and healthy: it takes part in the shards' assignment. */
  readonly live: boolean
  /** The replica answering this request. */
  readonly self: boolean
}

/** Who follows one run. */
export interface RunFollowerInfo {
  /** The runner the run's shard is assigned to (`ReplicaInfo.address`); null: no live runner. */
  readonly address: string | null
  readonly self: boolean
  /**
   * The shard's lock is held now (PostgreSQL advisory lock). Assigned but not held: the shard is
   * moving (its new owner takes it within the lock expiry) and nobody follows the run this moment.
   */
  readonly held: boolean
  /** The run's shard (1..CLUSTER_TIMING.shards); null on a single daemon. */
  readonly shard: number | null
}

export interface ReplicasShape {
  /** A cluster of replicas (PostgreSQL with a cluster address), or this daemon alone. */
  readonly clustered: boolean
  /** Every runner the cluster records, live ones first, this one marked. */
  readonly list: Effect.Effect<ReadonlyArray<ReplicaInfo>, SqlError>
  /** The follower of each run id given (live runs: a terminal run has none, callers ask for live ones). */
  readonly followersOf: (runIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, RunFollowerInfo>, SqlError>
}

export class Replicas extends Context.Tag("agent-bridge/Replicas")<Replicas, ReplicasShape>() {}

/** One replica, `name`: it follows every run. */
export const singleReplica = (name: string): ReplicasShape => ({
  clustered: false,
  list: Effect.map(Clock.currentTimeMillis, (now) => [{ address: name, replicaId: name, healthy: true, lastHeartbeatMs: now, live: true, self: true }]),
  followersOf: (runIds) => Effect.succeed(new Map(runIds.map((id) => [id, { address: name, self: true, held: true, shard: null }])))
})

export const ReplicasSingle = (name: string) => Layer.succeed(Replicas, singleReplica(name))

/** The service, or the single answer when nothing provided it. */
export const replicasOrSingle: Effect.Effect<ReplicasShape> = Effect.map(
  Effect.serviceOption(Replicas),
  Option.getOrElse(() => singleReplica("this replica"))
)

/** A follower as one line of text (the console's cell, the CLI's field). */
export const followerText = (f: RunFollowerInfo | undefined, replicas: ReadonlyArray<ReplicaInfo>): string => {
  if (f === undefined) return "-"
  if (f.address === null) return "none (no live replica)"
  if (f.shard === null) return `${f.address} (the only replica)`
  const me = replicas.find((r) => r.address === f.address && r.self)
  const name = me === undefined ? f.address : me.replicaId !== null && me.replicaId !== f.address ? `${f.address} (this replica, ${me.replicaId})` : `${f.address} (this replica)`
  return f.held ? name : `${name}, taking over (shard ${f.shard ?? "?"} not locked yet)`
}
