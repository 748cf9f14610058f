/**
 * `npm run test:clients`: the real MCP clients (conformance suite, MCP Inspector, Claude Code,
 * Codex) against a real daemon, kept out of the ordinary suite (which only picks up `*.test.ts`).
 * scripts/clients-install.sh installs the clients first; files run one at a time, since each
 * starts a daemon and a client tool of its own on a two-core machine.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
  test: {
    include: ["test/clients/**/*.clients.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    fileParallelism: false
  }
})
