/**
 * The cluster's message tables are pruned (services/runs/pg/clusterMessageRetention.ts): on a
 * PostgreSQL database with the tables as `@effect/cluster`'s own storage layer creates them, the
 * sweep deletes an answered `Follow` (processed) with its reply and its interrupt row, and keeps an
 * unanswered one (a live run's, or one waiting for its next owner) and another entity's messages.
 * Without the sweep nothing is deleted: the cluster itself only marks a message processed.
 */
import { ShardingConfig, SqlMessageStorage } from "@effect/cluster"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { sweepClusterMessages } from "../../src/services/runs/pg/clusterMessageRetention.ts"
import { RunFollowerEntity } from "../../src/services/runs/clusterFollowers.ts"
import { usePostgres } from "../support/postgres.ts"

describe("retention of the cluster's message tables", () => {
  const pg = usePostgres()

  it("deletes answered run follows with their replies, keeps unanswered ones and other entities'", async (ctx) => {
    const url = await pg.database(ctx)
    const db = PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })
    // The tables exactly as the cluster makes them.
    const tables = SqlMessageStorage.layer.pipe(Layer.provide(ShardingConfig.layer()))
    const program = Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const message = (id: number, requestId: number, kind: number, entityType: string, entityId: string, processed: boolean) =>
        sql`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, payload, headers, processed, request_id)
            VALUES (${id}, ${kind === 0 ? `${entityType}/${entityId}/Follow` : null}, 'default:1', ${entityType}, ${entityId}, ${kind}, 'Follow', '{}', '{}', ${processed}, ${requestId})`
      const reply = (id: number, requestId: number) =>
        sql`INSERT INTO cluster_replies (id, kind, request_id, payload, sequence) VALUES (${id}, 0, ${requestId}, '{}', NULL)`
      const type = RunFollowerEntity.type
      yield* message(1, 1, 0, type, "run_done", true)
      yield* message(2, 1, 2, type, "run_done", true) // its interrupt row (same request)
      yield* reply(11, 1)
      yield* message(3, 3, 0, type, "run_live", false)
      yield* message(4, 4, 0, "SomethingElse", "x", true)
      yield* reply(14, 4)
      const counts = Effect.map(
        sql<{ messages: number; replies: number }>`SELECT (SELECT COUNT(*)::int FROM cluster_messages) AS messages, (SELECT COUNT(*)::int FROM cluster_replies) AS replies`,
        (rows) => rows[0]!
      )
      expect(yield* counts).toEqual({ messages: 4, replies: 2 })
      expect(yield* sweepClusterMessages).toBe(1)
      expect(yield* counts).toEqual({ messages: 2, replies: 1 })
      const left = yield* sql<{ id: number }>`SELECT id::int AS id FROM cluster_messages ORDER BY id`
      expect(left.map((r) => r.id)).toEqual([3, 4])
      // Again: nothing more to do.
      expect(yield* sweepClusterMessages).toBe(0)
    })
    await Effect.runPromise(program.pipe(Effect.provide(tables.pipe(Layer.provideMerge(db))), Effect.scoped))
  }, 300_000)

  it("answers 0 on a database without the cluster's tables (no replica ever ran there)", async (ctx) => {
    const url = await pg.database(ctx)
    const n = await Effect.runPromise(sweepClusterMessages.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.scoped))
    expect(n).toBe(0)
  }, 300_000)
})
