/**
 * The two replica fault scenarios of issue 25 (items 5 and 6), which do not pass yet: the rolling
 * restart (`rollingRestart.e2e.test.ts`) and the replicated chaos (`replicas.chaos.ts`). Both show
 * runs that wait on a clarification left without a Hermes event stream for minutes on the cluster
 * path under load (docs/RELIABILITY.md, "Replicas"). Kept out of `npm test`, `npm run test:chaos`
 * and CI until they pass; run them with `npm run test:replicas` (one file at a time, like the chaos
 * tests).
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
