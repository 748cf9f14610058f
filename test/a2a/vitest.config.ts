/**
 * `npm run test:a2a` (scripts/a2a-test.sh): the A2A face against real A2A peers, kept out of the
 * ordinary suite because the Python SDK needs its venv: the Python `a2a-sdk` from PyPI
 * (`*.a2a.ts`), the `@a2a-js/sdk` client (its e2e file, which `npm test` runs too), and the
 * "Connect an A2A agent" snippets of docs/CONNECT.md run as printed.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
  test: {
    include: ["test/a2a/**/*.a2a.ts", "test/edge/a2a.sdk*.e2e.test.ts"],
    globalSetup: ["test/support/tmpdirSetup.ts"],
    setupFiles: ["test/support/fastCheckSeed.ts", "test/support/quietConsole.ts", "test/support/tempDirCleanup.ts"],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false
  }
})
