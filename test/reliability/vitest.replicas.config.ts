/**
 * The two replica fault scenarios of issue 25 (items 5 and 6) alone: the rolling restart
 * (`rollingRestart.e2e.test.ts`, also in `npm run test:processes`) and the replicated chaos (`replicas.chaos.ts`,
 * also in `npm run test:chaos`), one file at a time: `npm run test:replicas`, for work on replicas.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
  test: {
    include: ["test/reliability/rollingRestart.e2e.test.ts", "test/reliability/replicas.chaos.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false
  }
})
