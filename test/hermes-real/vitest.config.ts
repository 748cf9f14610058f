/**
 * The real-Hermes suite (`*.real.ts`), kept out of the ordinary suite (which picks up `*.test.ts`
 * only): `npm run test:hermes` installs the pinned hermes-agent and runs this config. One file at a
 * time, since each starts its own gateway.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
  test: {
    include: ["test/hermes-real/**/*.real.ts"],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    pool: "forks",
    fileParallelism: false
  }
})
