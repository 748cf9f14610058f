/**
 * The suites on PostgreSQL (issue 24 item 6): the store contract, tool and end-to-end tests of the
 * files below, run again with `AGENT_BRIDGE_TEST_DIALECT=pg`, so that `TestDb` (and a daemon a
 * test starts) uses a fresh database on one throwaway server per run (`support/pgGlobalSetup.ts`).
 * Part of `npm test`; alone: `npm run test:pg`.
 */
import { defineConfig } from "vitest/config"
import base from "../vitest.config.ts"

/** The files that run on both dialects. */
export const PG_FILES = [
  "test/edge/authCache.test.ts",
  "test/storage/changeFeedPg.test.ts",
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
