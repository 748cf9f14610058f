import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The change feed's triggers (src/storage/pg/ChangeFeedPg.ts): each owner's table notifies the
 * channel `agent_bridge_<topic>` when it changes, so every writer (the CLI, another daemon, psql by
 * hand) is heard without announcing itself. PostgreSQL delivers a NOTIFY at commit (never for a
 * rolled-back write) and folds equal ones within a transaction into one.
 *
 * Statement-level for `clients`, `inbox` and `run_stop_requests`: a change says "read again", and
 * their readers read the topic whole. Row-level for `runs`, carrying the run id: every event write
 * updates its run's row, and a wait follows one run, so a keyed change wakes only that run's waits
 * (one notification per run per commit, the same count a statement-level one sends for a write of
 * one run; scripts/bench-feed-triggers.ts measures the cost on the write path). The payload is
 * `<origin> <key>`: the writing session's `agent_bridge.origin` (empty for a writer that sets none,
 * see src/storage/pg/origin.ts), a space, then the run id or `*`; never empty (a listener may drop
 * payload-less notifications).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE FUNCTION agent_bridge_notify_table() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agent_bridge_' || TG_ARGV[0], coalesce(current_setting('agent_bridge.origin', true), '') || ' *');
  RETURN NULL;
END
$$`)
  yield* sql.unsafe(`CREATE FUNCTION agent_bridge_notify_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('agent_bridge_runs', coalesce(current_setting('agent_bridge.origin', true), '') || ' ' || OLD.run_id);
  ELSE
    PERFORM pg_notify('agent_bridge_runs', coalesce(current_setting('agent_bridge.origin', true), '') || ' ' || NEW.run_id);
  END IF;
  RETURN NULL;
END
$$`)
  for (const [table, topic] of [["clients", "keys"], ["inbox", "inbox"], ["run_stop_requests", "stops"]] as const) {
    yield* sql.unsafe(
      `CREATE TRIGGER ${table}_change_feed AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION agent_bridge_notify_table('${topic}')`
    )
    yield* sql.unsafe(`CREATE TRIGGER ${table}_change_feed_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION agent_bridge_notify_table('${topic}')`)
  }
  yield* sql.unsafe(`CREATE TRIGGER runs_change_feed AFTER INSERT OR UPDATE OR DELETE ON runs FOR EACH ROW EXECUTE FUNCTION agent_bridge_notify_run()`)
  yield* sql.unsafe(`CREATE TRIGGER runs_change_feed_truncate AFTER TRUNCATE ON runs FOR EACH STATEMENT EXECUTE FUNCTION agent_bridge_notify_table('runs')`)
})
