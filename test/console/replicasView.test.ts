/**
 * The console's replica facts over a fleet described by the test (`ReplicasTest`): which replica
 * follows each live run, a shard on the move, a run nobody follows, and that the page asks the
 * cluster about live runs only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readReplicas } from "../../src/edge/inbox/console/read.ts"
import { followerCell, followerFact, replicasSection } from "../../src/edge/inbox/console/replicasView.ts"
import type { ReplicaInfo, RunFollowerInfo } from "../../src/services/replicas/Replicas.ts"
import { ReplicasTest } from "../../src/services/replicas/ReplicasTest.ts"

const NOW = 1_800_000_000_000
const fleet: ReadonlyArray<ReplicaInfo> = [
  { address: "10.0.0.1:34431", replicaId: "a", healthy: true, lastHeartbeatMs: NOW - 2_000, live: true, self: true },
  { address: "10.0.0.2:34431", replicaId: null, healthy: true, lastHeartbeatMs: NOW - 90_000, live: false, self: false }
]
const followers = new Map<string, RunFollowerInfo>([
  ["run_held", { address: "10.0.0.1:34431", self: true, held: true, shard: 3 }],
  ["run_moving", { address: "10.0.0.2:34431", self: false, held: false, shard: 7 }]
])

describe("the console's replica facts", () => {
  it.effect("name each live run's follower, a shard on the move and a run nobody follows", () =>
    Effect.gen(function* () {
      const asked: Array<ReadonlyArray<string>> = []
      const shown = yield* readReplicas(["run_held", "run_moving", "run_orphan"]).pipe(Effect.provide(ReplicasTest(fleet, followers, asked)))
      expect(asked).toEqual([["run_held", "run_moving", "run_orphan"]])
      expect(shown.clustered).toBe(true)
      expect(followerCell(shown, "run_held").text).toContain("10.0.0.1:34431 (this replica, a)")
      expect(followerFact(shown, "run_moving").text).toContain("taking over (shard 7 not locked yet)")
      expect(followerCell(shown, "run_orphan").text).toContain("none (no live replica)")
      // A run the page did not ask about (a terminal one) has no cell content.
      expect(followerCell(shown, "run_ended").text).toContain("–")
      const section = replicasSection(shown, NOW).text
      expect(section).toContain("2 replicas")
      expect(section).toContain("heartbeat stale")
      expect(section).not.toContain("One replica")
    }))

  it.effect("a single daemon (one replica) says so and is not called clustered", () =>
    Effect.gen(function* () {
      const shown = yield* readReplicas([]).pipe(Effect.provide(ReplicasTest(fleet.slice(0, 1))))
      expect(shown.clustered).toBe(false)
      expect(replicasSection(shown, NOW).text).toContain("One replica: this daemon follows every run.")
    }))
})
