/**
 * The cluster's own arithmetic, done again from its records so that a reader outside the runner
 * (another replica's page, the CLI) can say which runner follows a run:
 *
 * - a run's shard: `@effect/cluster`'s `Sharding.getShardId` for the entity id (the run id), the
 *   djb2 hash of `internal/hash.ts` over `CLUSTER_TIMING.shards`; that module is not exported, so
 *   its five lines are repeated here, and `test/cluster/replicas.e2e.test.ts` checks the answer
 *   against the replica whose log says it follows the run;
 * - which runner a shard is assigned to: every runner computes the same `HashRing` over the live,
 *   healthy runners (address, weight) and takes `HashRing.getShards`, exactly as `Sharding` does.
 */
import { Runner } from "@effect/cluster"
import type { RunnerAddress } from "@effect/cluster"
import { HashRing, PrimaryKey } from "effect"
import { CLUSTER_TIMING } from "../../domain/limits.ts"

const hashOptimize = (n: number): number => (n & 0xbfffffff) | ((n >>> 1) & 0x40000000)

const hashString = (str: string): number => {
  let h = 5381
  let i = str.length
  while (i) h = (h * 33) ^ str.charCodeAt(--i)
  return hashOptimize(h)
}

/** The shard (1-based) of a run's follower entity. */
export const shardOfRun = (runId: string, shards: number = CLUSTER_TIMING.shards): number => Math.abs(hashString(runId) % shards) + 1

/** A runner row's `runner` column (the cluster's JSON of `Runner`), or null when it does not decode. */
export const decodeRunner = (text: string): Runner.Runner | null => {
  try {
    return Runner.Runner.decodeSync(text)
  } catch {
    return null
  }
}

/** The address of the runner each shard (index 0 = shard 1) is assigned to; empty without live runners. */
export const assignShards = (live: ReadonlyArray<Runner.Runner>, shards: number = CLUSTER_TIMING.shards): ReadonlyArray<string> => {
  const ring = HashRing.make<RunnerAddress.RunnerAddress>()
  for (const r of live) HashRing.add(ring, r.address, { weight: r.weight })
  return (HashRing.getShards(ring, shards) ?? []).map((a) => PrimaryKey.value(a))
}
