/**
 * `GET /metrics`: the daemon's metrics in the Prometheus text format (common/Metrics.ts). It needs
 * a bearer key: the admin key, or `bridge.metrics_token` when one is configured (so a scraper holds
 * no key that could do anything else). The database's facts (live runs, pending inbox rows, the
 * ledger's size) are read at each scrape through their owners, so they are exact whoever wrote them
 * (the CLI included).
 */
import { SqlClient } from "@effect/sql"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { replicaIdOf } from "../../config/schema.ts"
import { bearerToken } from "../../services/auth/apiKeys.ts"
import { Metrics } from "../../common/Metrics.ts"
import { InboxStore } from "../../services/inbox/InboxStore.ts"
import { Ledger } from "../../services/runs/Ledger.ts"
import { databaseBytes } from "../../storage/probe.ts"
import { isOperatorKey } from "./operatorKey.ts"
import { forbidden, jsonError } from "./responses.ts"

export const METRICS_PATH = "/metrics"

/** Read through each table's owner (the ledger, the inbox's store); the file's size from storage. */
const storeFacts = Effect.gen(function* () {
  const ledger = yield* Ledger
  const inbox = yield* InboxStore
  const sql = yield* SqlClient.SqlClient
  const liveRuns = yield* ledger.liveByClient
  const totals = yield* ledger.totals
  const inboxPending = yield* inbox.pendingCount
  const queued = yield* ledger.queueDepths
  return {
    liveRuns,
    queued,
    inboxPending,
    ledgerRuns: totals.runs,
    ledgerEvents: totals.events,
    databaseBytes: yield* databaseBytes(sql)
  }
})

/**
 * This replica's name: `bridge.replica_id`, else `host:port`, with the port the listener was given
 * when the configured one is 0 (any free port).
 */
const replicaId = Effect.gen(function* () {
  const bridge = (yield* AppConfig).bridge
  if (bridge.replica_id !== undefined || bridge.port !== 0) return replicaIdOf(bridge)
  const server = yield* Effect.serviceOption(HttpServer.HttpServer)
  const bound = Option.flatMap(server, (s) => (s.address._tag === "TcpAddress" ? Option.some(s.address.port) : Option.none()))
  return replicaIdOf({ ...bridge, port: Option.getOrElse(bound, () => bridge.port) })
})

export const metricsResponse = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  if (req.method !== "GET") {
    return jsonError(405, "method_not_allowed", "/metrics takes GET").pipe(HttpServerResponse.setHeader("allow", "GET"))
  }
  if (!(yield* isOperatorKey(bearerToken(req.headers["authorization"])))) {
    return forbidden("/metrics needs the admin key or bridge.metrics_token as a bearer token")
  }
  const metrics = yield* Metrics
  metrics.labelReplica(yield* replicaId)
  metrics.observeStore(yield* storeFacts)
  const text = yield* Effect.promise(() => metrics.render())
  return HttpServerResponse.text(text, { contentType: metrics.contentType, headers: { "cache-control": "no-store" } })
})
