/**
 * The `cluster` section (issue 25 item 2): the address other replicas reach this one at for the run
 * followers' messages. Only with `storage.url`; the port defaults to the bridge port + 1000, `0` (or
 * no port to derive: bridge port 0) is no cluster; the env overrides like every section's; a bad
 * port is refused with its key named. A start failure on the cluster's port names cluster's keys.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Either, Exit, Layer, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { clusterAddress, clusterPort, clusterSecret } from "../../src/config/cluster.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { loadConfig } from "../../src/config/load.ts"
import { failureLine } from "../../src/daemon/startFailure.ts"
import { ClusterListenFailed, ClusterRunnerFromConfig, ClusterRunnerLive, CLUSTER_POOL_MIN } from "../../src/daemon/clusterRunner.ts"
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
      Layer.build(ClusterRunnerLive({ host: "127.0.0.1", port: 9765 }, CLUSTER_POOL_MIN - 1, Redacted.make("x".repeat(32)))).pipe(
        Effect.scoped,
        Effect.provideService(SqlClient.SqlClient, {} as SqlClient.SqlClient)
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    const line = failureLine(error, { what: "agent-bridge serve", dataDir: "/tmp/x", port: 8765 })
    expect(line).toBe(`agent-bridge serve: storage.pool_max is 2: a daemon in a cluster needs at least 3 connections (one holds its shard locks); raise it, or set cluster.port: 0`)
  })

  it("a cluster without its secret does not start: one line naming cluster.secret, cluster.secret_file and cluster.port: 0", async () => {
    const exit = await Effect.runPromiseExit(
      Layer.build(ClusterRunnerFromConfig({ host: "127.0.0.1", port: 9765 }, { host: "127.0.0.1" }, 10)).pipe(
        Effect.scoped,
        Effect.provide(RedactorLive),
        Effect.provideService(SqlClient.SqlClient, {} as SqlClient.SqlClient)
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const line = failureLine(Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined, { what: "agent-bridge serve", dataDir: "/tmp/x", port: 8765 })
    expect(line).toMatch(/^agent-bridge serve: cluster\.secret is not set: /)
    for (const key of ["cluster.secret", "AGENT_BRIDGE_CLUSTER_SECRET", "cluster.secret_file", "cluster.port: 0"]) expect(line).toContain(key)
  })

  it("cluster.secret_file: read and trimmed; unreadable or short is refused, never quoting it", () => {
    const dir = tempDir()
    const good = path.join(dir, "secret")
    fs.writeFileSync(good, `${"s".repeat(40)}\n`)
    const read = clusterSecret({ host: "127.0.0.1", secret_file: good })
    expect(Either.isRight(read) ? Redacted.value(read.right) : "").toBe("s".repeat(40))
    const missing = clusterSecret({ host: "127.0.0.1", secret_file: path.join(dir, "none") })
    expect(Either.isLeft(missing) ? missing.left.message : "").toContain(`cannot read cluster.secret_file ${path.join(dir, "none")} (ENOENT)`)
    const short = path.join(dir, "short")
    fs.writeFileSync(short, "shortsecret-xyz\n")
    const refused = clusterSecret({ host: "127.0.0.1", secret_file: short })
    expect(Either.isLeft(refused) ? refused.left.message : "").toContain("fewer than 32 characters")
    expect(Either.isLeft(refused) ? refused.left.message : "").not.toContain("shortsecret-xyz")
    // cluster.secret first.
    const both = clusterSecret({ host: "127.0.0.1", secret: Redacted.make("k".repeat(32)), secret_file: short })
    expect(Either.isRight(both) ? Redacted.value(both.right) : "").toBe("k".repeat(32))
  })

  it("AGENT_BRIDGE_CLUSTER_SECRET is taken as it is; a short cluster.secret is refused without quoting it", () => {
    const digits = "1234567890".repeat(4)
    const set = Either.getOrThrow(fromEnv({ AGENT_BRIDGE_STORAGE_URL: PG, AGENT_BRIDGE_CLUSTER_SECRET: digits }))
    expect(set.cluster.secret !== undefined ? Redacted.value(set.cluster.secret) : "").toBe(digits)
    expect(String(set.cluster.secret)).not.toContain(digits)
    const res = fromEnv({ AGENT_BRIDGE_CLUSTER_SECRET: "too-short-secret-9" })
    expect(Either.isLeft(res)).toBe(true)
    const message = Either.isLeft(res) ? res.left.message : ""
    expect(message).toContain("cluster.secret")
    expect(message).not.toContain("too-short-secret-9")
  })

  it("the secret is registered with the Redactor when the runner is built", async () => {
    const secret = "register-me-cluster-secret-0123456789abcdef"
    const masked = await Effect.runPromise(
      Effect.gen(function* () {
        const built = yield* Effect.exit(Layer.build(ClusterRunnerFromConfig({ host: "127.0.0.1", port: 9765 }, { host: "127.0.0.1", secret: Redacted.make(secret) }, CLUSTER_POOL_MIN - 1)))
        expect(Exit.isFailure(built)).toBe(true)
        return (yield* Redactor).text(`the secret is ${secret} here`)
      }).pipe(Effect.scoped, Effect.provide(RedactorLive), Effect.provideService(SqlClient.SqlClient, {} as SqlClient.SqlClient))
    )
    expect(masked).not.toContain(secret)
  })
})
