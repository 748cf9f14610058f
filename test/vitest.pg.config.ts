/**
 * The suites on PostgreSQL (issue 24 item 6): the store contract, tool and end-to-end tests of the
 * files below, run again with `AGENT_BRIDGE_TEST_DIALECT=pg`, so that `TestDb` (and a daemon a
 * test starts) uses a fresh database on one throwaway server per run (`support/pgGlobalSetup.ts`).
 * Part of `npm test`; alone: `npm run test:pg`.
 */
import { defineConfig } from "vitest/config"
import base from "../vitest.config.ts"

/**
 * The files that run on both dialects. Waiting (not listed yet): test/inbox/daemon.e2e,
 * browser.e2e and signInLimit.e2e start a daemon, which refuses storage.url until DbForStores
 * takes it (p31-ledger). SQLite by nature: test/teach/memory-fold.test.ts (checks against SQLite's
 * tokenizer). test/inbox/chromiumSetup.test.ts holds no data: once is enough.
 */
export const PG_FILES = [
  "test/edge/authCache.test.ts",
  "test/inbox/events.test.ts",
  "test/inbox/feed.test.ts",
  "test/inbox/pages.test.ts",
  "test/inbox/readonlySkills.test.ts",
  "test/inbox/retention.test.ts",
  "test/inbox/routes.test.ts",
  "test/storage/changeFeedPg.test.ts",
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
    env: { AGENT_BRIDGE_TEST_DIALECT: "pg" },
    globalSetup: ["test/support/tmpdirSetup.ts", "test/support/pgGlobalSetup.ts"]
  }
})
