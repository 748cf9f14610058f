import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A2A push configs sign their notifications with a secret of their own (Standard Webhooks,
 * services/a2aPush/deliver.ts): `whsec_<base64>`, given to the client once when the config is
 * made, kept here so the bridge can sign. Configs made before have none (''): their notifications
 * carry no `webhook-signature`. SQL both dialects take.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE a2a_push_configs ADD COLUMN signing_secret TEXT NOT NULL DEFAULT ''`
})
