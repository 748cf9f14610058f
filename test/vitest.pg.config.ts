/**
 * The suites on PostgreSQL (issue 24 item 6): the store contract, tool and end-to-end tests of the
 * files below, run again with `AGENT_BRIDGE_TEST_DIALECT=pg`, so that `TestDb` (and a daemon a
 * test starts) uses a fresh database on one throwaway server per run (`support/pgGlobalSetup.ts`).
 * Part of `npm test`; alone: `npm run test:pg`.
 */
import { defineConfig } from "vitest/config"
import base from "../vitest.config.ts"

/**
 * The files that run on both dialects (sorted, one a line). Left out: SQLite by nature,
 * test/storage/{changeFeed (data_version), db, epochMsMigration, transaction (SQLITE_FULL)}.test.ts
 * test/storage/corruptRows.test.ts (an INTEGER column holding text: SQLite lets it, PostgreSQL refuses
 * the write) and test/teach/memory-fold.test.ts (checks against SQLite's tokenizer); with a PostgreSQL server
 * of their own (in the ordinary run): test/storage/{postgresSupport, pgOutage}.test.ts,
 * test/cli/{storageFaults.process, storageCopy}.test.ts, test/reliability/{pgRestart, rollingRestart}.e2e.test.ts,
 * test/inbox/storePlace.test.ts (its SQLite case beside);
 * test/runs/runs-failover.e2e.test.ts (replicas: PostgreSQL only);
 * no data: test/inbox/chromiumSetup.test.ts; the browser pages (test/inbox/browser.e2e.test.ts) read
 * the routes test/inbox/routes.test.ts checks on both, so Chromium runs once, on SQLite.
 */
export const PG_FILES = [
  "test/console/console.routes.e2e.test.ts",
  "test/console/metrics.e2e.test.ts",
  "test/console/operatorStops.test.ts",
  "test/console/stopOutcome.test.ts",
  "test/console/ownerReads.test.ts",
  "test/console/usage-isolation.e2e.test.ts",
  "test/edge/a2a.face.e2e.test.ts",
  "test/edge/a2a.stream.e2e.test.ts",
  "test/edge/a2a.push.e2e.test.ts",
  "test/edge/a2a.pushReceivers.test.ts",
  "test/edge/a2aPushStore.test.ts",
  "test/edge/a2aPushIdle.test.ts",
  "test/edge/a2a.push.sigkill.e2e.test.ts",
  "test/edge/authCache.test.ts",
  "test/edge/clientError.e2e.test.ts",
  "test/edge/daemon.e2e.test.ts",
  "test/edge/eras.e2e.test.ts",
  "test/edge/queue.e2e.test.ts",
  "test/edge/quotas.e2e.test.ts",
  "test/edge/keyRedaction.e2e.test.ts",
  "test/edge/nulInput.e2e.test.ts",
  "test/edge/revocation.e2e.test.ts",
  "test/edge/sessionReplicas.test.ts",
  "test/edge/shutdown.e2e.test.ts",
  "test/edge/tasks.e2e.test.ts",
  "test/inbox/daemon.e2e.test.ts",
  "test/oauth/cimd.e2e.test.ts",
  "test/oauth/oauth.e2e.test.ts",
  "test/oauth/oauthErrors.e2e.test.ts",
  "test/oauth/redaction.e2e.test.ts",
  "test/oauth/replicas.e2e.test.ts",
  "test/oauth/registrations.test.ts",
  "test/inbox/events.test.ts",
  "test/inbox/feed.test.ts",
  "test/inbox/pages.test.ts",
  "test/inbox/readonlySkills.test.ts",
  "test/inbox/retention.test.ts",
  "test/inbox/routes.test.ts",
  "test/inbox/sessionStore.test.ts",
  "test/inbox/sessionsShared.test.ts",
  "test/inbox/signInLimit.e2e.test.ts",
  "test/inbox/signInLimit.test.ts",
  "test/redact/heldSecrets.test.ts",
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
  "test/runs/runs-foreignPath.test.ts",
  "test/runs/runs-isolation.test.ts",
  "test/runs/runs-mcp.e2e.test.ts",
  "test/runs/runs-pi.e2e.test.ts",
  "test/runs/runs-queue.test.ts",
  "test/runs/runs-queueFair.test.ts",
  "test/runs/runs-queueReplicas.test.ts",
  "test/runs/runs-quietStream.test.ts",
  "test/runs/runs-restart.test.ts",
  "test/runs/runs-sigkill.e2e.test.ts",
  "test/runs/runs-sim.test.ts",
  "test/runs/runs-simQuirks.test.ts",
  "test/runs/runs-start.test.ts",
  "test/runs/runs-stopRace.test.ts",
  "test/runs/runs-streamCut.test.ts",
  "test/runs/runs-time.test.ts",
  "test/runs/runs-viewReuse.test.ts",
  "test/runs/runs-views.test.ts",
  "test/runs/runs-waitOtherProcess.test.ts",
  "test/runs/runs-watch.test.ts",
  "test/runs/signals.test.ts",
  "test/runs/singleFlight.test.ts",
  "test/runs/window.test.ts",
  "test/storage/changeFeedPg.test.ts",
  "test/storage/clockTimes.test.ts",
  "test/storage/portableMigration.test.ts",
  "test/storage/rowOrder.test.ts",
  "test/storage/testDb.test.ts",
  "test/teach/cli-inbox.test.ts",
  "test/teach/inbox-runs.logging.test.ts",
  "test/teach/inbox-runs.test.ts",
  "test/teach/inbox-skills.test.ts",
  "test/teach/memory-reserved-lookalikes.test.ts",
  "test/teach/memory-service.test.ts",
  "test/teach/memory-store.test.ts",
  "test/teach/memory-tools.test.ts",
  "test/teach/shipped-skills.test.ts",
  "test/teach/skill-card-diff.test.ts",
  "test/teach/skill-validate.test.ts",
  "test/teach/skillNamesRedaction.test.ts",
  "test/teach/skills-service.test.ts",
  "test/teach/teach-wiring.test.ts"
]

export default defineConfig({
  test: {
    ...base.test,
    include: PG_FILES,
    exclude: [],
    env: { AGENT_BRIDGE_TEST_DIALECT: "pg" },
    globalSetup: ["test/support/tmpdirSetup.ts", "test/support/pgGlobalSetup.ts"]
  }
})
