import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Inbox retention deletes closed rows by when they were closed (`InboxStore.deleteHistory`). The
 * index holds only closed rows, so pending ones (the page's hot query) do not pay for it; its
 * condition is the one the sweep query spells out, which is what lets SQLite use a partial index.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX inbox_closed_decided_at ON inbox (decided_at) WHERE state <> 'pending'`
})
