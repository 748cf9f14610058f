/**
 * `ReplicasTest`: a fleet as a test describes it, for the console's and the CLI's views without a
 * cluster. It answers `list` with the given replicas and `followersOf` from the given map (a run it
 * does not name has no live follower), and records the run ids each `followersOf` asked about.
 */
import { Effect, Layer } from "effect"
import { type ReplicaInfo, Replicas, type RunFollowerInfo } from "./Replicas.ts"

const nobody: RunFollowerInfo = { address: null, self: false, held: false, shard: null }

/** The fleet `replicas` whose runs `followers` follow (by run id); `asked` gathers every question. */
export const ReplicasTest = (
  replicas: ReadonlyArray<ReplicaInfo>,
  followers: ReadonlyMap<string, RunFollowerInfo> = new Map(),
  asked: Array<ReadonlyArray<string>> = []
) =>
  Layer.succeed(Replicas, {
    clustered: replicas.length > 1,
    list: Effect.succeed(replicas),
    followersOf: (runIds) =>
      Effect.sync(() => {
        asked.push([...runIds])
        return new Map(runIds.map((id) => [id, followers.get(id) ?? nobody]))
      })
  })
