/**
 * This daemon as one runner of `@effect/cluster` over the bridge's PostgreSQL database, for the run
 * followers (services/runs/clusterFollowers.ts): the cluster's message and runner storage
 * (`SqlMessageStorage`, `SqlRunnerStorage`: tables `cluster_*`, shard locks as PostgreSQL advisory
 * locks held on one reserved connection), a socket server on `cluster.host:cluster.port` for the
 * other replicas' messages, and health pings between runners. The timings are `CLUSTER_TIMING`
 * (domain/limits.ts), for a failover within 10 s.
 *
 * Built by hand rather than through `NodeClusterSocket.layer`: that one reads its settings from the
 * environment too (HOST, PORT, ...), which must not move a bridge's runner address; and its socket
 * server and client protocol are the library's with the shared secret's hello in front
 * (daemon/clusterSocket.ts), its RPC buffer bounded (`CLUSTER_PORT_LIMITS`).
 */
import { Runners, RunnerAddress, RunnerHealth, ShardingConfig, SocketRunner, SqlMessageStorage, SqlRunnerStorage } from "@effect/cluster"
import type { Sharding } from "@effect/cluster"
import { NodeSocketServer } from "@effect/platform-node"
import { SocketServer } from "@effect/platform/SocketServer"
import type { SqlClient } from "@effect/sql"
import { Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import { type ClusterAddress, type ClusterSecretMissing, clusterSecret } from "../config/cluster.ts"
import type { ClusterSection } from "../config/schema.ts"
import { Redactor } from "../common/Redactor.ts"
import { CLUSTER_PORT_LIMITS, CLUSTER_TIMING } from "../domain/limits.ts"
import { underMigrationLock } from "../storage/migrations/migrate.ts"
import { type ClusterPortLimits, clusterSerialization, guardSocketServer, helloAddress, layerClientProtocolWithSecret } from "./clusterSocket.ts"

/** The cluster's socket server could not listen (the port in use, an address not of this machine). */
export class ClusterListenFailed extends Data.TaggedError("ClusterListenFailed")<{
  readonly address: string
  readonly cause: unknown
}> {
  override get message() {
    const reason = (this.cause as { cause?: { message?: unknown } })?.cause?.message ?? (this.cause as { message?: unknown })?.message
    return `cannot listen for the other replicas on ${this.address} (cluster.host:cluster.port): ${String(reason ?? "failed")}; set cluster.port (0: no cluster)`
  }
}

/**
 * The pool must hold the shard locks' reserved connection beside the migration lock's at start, and
 * leave the stores at least one: below this the start would wait on itself.
 */
export const CLUSTER_POOL_MIN = 3

/** `storage.pool_max` too small for a runner (see `CLUSTER_POOL_MIN`). */
export class ClusterPoolTooSmall extends Data.TaggedError("ClusterPoolTooSmall")<{ readonly poolMax: number }> {
  override get message() {
    return `storage.pool_max is ${this.poolMax}: a daemon in a cluster needs at least ${CLUSTER_POOL_MIN} connections (one holds its shard locks); raise it, or set cluster.port: 0`
  }
}

const shardingConfig = (address: ClusterAddress) =>
  ShardingConfig.layer({
    runnerAddress: Option.some(RunnerAddress.make(address.host, address.port)),
    shardsPerGroup: CLUSTER_TIMING.shards,
    shardLockRefreshInterval: Duration.millis(CLUSTER_TIMING.lockRefreshMs),
    shardLockExpiration: Duration.millis(CLUSTER_TIMING.lockExpirationMs),
    refreshAssignmentsInterval: Duration.millis(CLUSTER_TIMING.assignmentsRefreshMs),
    entityMessagePollInterval: Duration.millis(CLUSTER_TIMING.messagePollMs),
    entityTerminationTimeout: Duration.millis(CLUSTER_TIMING.terminationTimeoutMs)
  })

/**
 * The cluster's storage, its tables created under the bridge's migration lock: two daemons starting
 * at once on a new database otherwise race in `CREATE TABLE IF NOT EXISTS` (pg_type's unique index).
 */
const storageUnderLock = Layer.scopedContext(
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    return yield* underMigrationLock(Layer.buildWithScope(Layer.merge(SqlMessageStorage.layer, SqlRunnerStorage.layer), scope))
  })
).pipe(Layer.orDie)

/** The library's socket server on `address`, behind the hello of `clusterSocket.ts`. */
const guardedSocketServer = (address: ClusterAddress, secret: Redacted.Redacted<string>, limits: ClusterPortLimits) =>
  Layer.scoped(
    SocketServer,
    Effect.map(NodeSocketServer.make({ host: address.host, port: address.port }), (inner) => guardSocketServer(inner, helloAddress(address), secret, limits))
  )

/**
 * Sharding with this daemon as a runner at `address`, over a pool of `poolMax` connections; its
 * port and its connections to the other replicas prove `secret` first (daemon/clusterSocket.ts).
 */
export const ClusterRunnerLive = (
  address: ClusterAddress,
  poolMax: number,
  secret: Redacted.Redacted<string>,
  limits: ClusterPortLimits = CLUSTER_PORT_LIMITS
): Layer.Layer<Sharding.Sharding, ClusterListenFailed | ClusterPoolTooSmall, SqlClient.SqlClient> => {
  if (poolMax < CLUSTER_POOL_MIN) return Layer.fail(new ClusterPoolTooSmall({ poolMax }))
  const listening = guardedSocketServer(address, secret, limits).pipe(
    Layer.mapError((cause) => new ClusterListenFailed({ address: `${address.host}:${address.port}`, cause }))
  )
  const clientProtocol = layerClientProtocolWithSecret(secret, limits)
  const health = RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(clientProtocol))
  return SocketRunner.layer.pipe(
    Layer.provide([listening, clientProtocol, health]),
    Layer.provide(storageUnderLock),
    Layer.provide(shardingConfig(address)),
    Layer.provide(clusterSerialization(limits))
  )
}

/**
 * The runner of a configuration: its secret resolved (`cluster.secret` / `cluster.secret_file`; none
 * refuses the start) and registered with the Redactor, so that no log line or answer carries it.
 */
export const ClusterRunnerFromConfig = (
  address: ClusterAddress,
  cluster: ClusterSection,
  poolMax: number
): Layer.Layer<Sharding.Sharding, ClusterListenFailed | ClusterPoolTooSmall | ClusterSecretMissing, SqlClient.SqlClient | Redactor> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const secret = yield* clusterSecret(cluster)
      yield* (yield* Redactor).registerSecret(Redacted.value(secret))
      return ClusterRunnerLive(address, poolMax, secret)
    })
  )
