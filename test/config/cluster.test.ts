/**
 * The `cluster` section (issue 25 item 2): the address other replicas reach this one at for the run
 * followers' messages. Only with `storage.url`; the port defaults to the bridge port + 1000, `0` (or
 * no port to derive: bridge port 0) is no cluster; the env overrides like every section's; a bad
 * port is refused with its key named. A start failure on the cluster's port names cluster's keys.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Either, Exit, Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import { clusterAddress, clusterPort } from "../../src/config/cluster.ts"
import { loadConfig } from "../../src/config/load.ts"
import { failureLine } from "../../src/daemon/startFailure.ts"
import { ClusterListenFailed, ClusterRunnerLive, CLUSTER_POOL_MIN } from "../../src/daemon/clusterRunner.ts"
import { tempDir } from "../support/daemon.ts"

const PG = "postgres://bridge@127.0.0.1:5432/bridge"
const fromEnv = (env: Record<string, string>) => loadConfig({ env, cwd: tempDir() })

describe("cluster configuration", () => {
  it("defaults: host 127.0.0.1, port the bridge port + 1000; none without storage.url", () => {
    const sqlite = Either.getOrThrow(fromEnv({}))
    expect(sqlite.cluster.host).toBe("127.0.0.1")
    expect(sqlite.cluster.port).toBeUndefined()
    expect(clusterAddress(sqlite)).toEqual(Option.none())
    const pg = Either.getOrThrow(fromEnv({ AGENT_BRIDGE_STORAGE_URL: PG }))
    expect(clusterAddress(pg)).toEqual(Option.some({ host: "127.0.0.1", port: 8765 + 1000 }))
  })

  it("AGENT_BRIDGE_CLUSTER_HOST and _PORT set it; port 0 is no cluster", () => {
    const set = Either.getOrThrow(fromEnv({ AGENT_BRIDGE_STORAGE_URL: PG, AGENT_BRIDGE_CLUSTER_HOST: "10.0.0.7", AGENT_BRIDGE_CLUSTER_PORT: "7001" }))
    expect(clusterAddress(set)).toEqual(Option.some({ host: "10.0.0.7", port: 7001 }))
    const off = Either.getOrThrow(fromEnv({ AGENT_BRIDGE_STORAGE_URL: PG, AGENT_BRIDGE_CLUSTER_PORT: "0" }))
    expect(clusterAddress(off)).toEqual(Option.none())
  })

  it("no port to derive: bridge port 0 (ephemeral) or above 64535 is no cluster unless cluster.port says", () => {
    expect(clusterPort({ host: "127.0.0.1" }, 0)).toBe(0)
    expect(clusterPort({ host: "127.0.0.1" }, 64_600)).toBe(0)
    expect(clusterPort({ host: "127.0.0.1", port: 9100 }, 0)).toBe(9100)
  })

  it("refuses a port out of range, naming cluster.port", () => {
    const res = fromEnv({ AGENT_BRIDGE_CLUSTER_PORT: "70000" })
    expect(Either.isLeft(res)).toBe(true)
    expect(Either.isLeft(res) ? res.left.message : "").toContain("cluster.port")
  })

  it("a start that cannot listen on the cluster's port says so with cluster's keys, not bridge.port", () => {
    const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:9765"), { code: "EADDRINUSE", syscall: "listen" })
    const failure = new ClusterListenFailed({ address: "127.0.0.1:9765", cause: { _tag: "SocketServerError", cause: inUse } })
    const line = failureLine(failure, { what: "agent-bridge serve", dataDir: "/tmp/x", host: "127.0.0.1", port: 8765 })
    expect(line).toContain("127.0.0.1:9765")
    expect(line).toContain("cluster.port")
    expect(line).toContain("EADDRINUSE")
    expect(line).not.toContain("8765")
  })

  it("a pool too small for a runner ends the start with one line naming storage.pool_max", async () => {
    const exit = await Effect.runPromiseExit(
      Layer.build(ClusterRunnerLive({ host: "127.0.0.1", port: 9765 }, CLUSTER_POOL_MIN - 1)).pipe(
        Effect.scoped,
        Effect.provideService(SqlClient.SqlClient, {} as SqlClient.SqlClient)
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    const line = failureLine(error, { what: "agent-bridge serve", dataDir: "/tmp/x", port: 8765 })
    expect(line).toBe(`agent-bridge serve: storage.pool_max is 2: a daemon in a cluster needs at least 3 connections (one holds its shard locks); raise it, or set cluster.port: 0`)
  })
})
