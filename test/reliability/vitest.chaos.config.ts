/**
 * The long fault tests (`*.chaos.ts`: SIGKILLs under 200 live runs, of one daemon and of random
 * replicas behind nginx with a PostgreSQL restart; the 10,000-run soak), kept out
 * of the ordinary suite (which only picks up `*.test.ts`) and run one file at a time so they do not
 * compete for the two cores: `vitest run --config test/reliability/vitest.chaos.config.ts`
 * (`npm run test:chaos`).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
  test: {
    include: ["test/reliability/**/*.chaos.ts"],
    testTimeout: 900_000,
    hookTimeout: 180_000,
    pool: "forks",
    fileParallelism: false
  }
})
