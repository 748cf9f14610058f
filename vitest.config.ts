import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A fresh temp folder per run; the run fails if a test leaves an agent-bridge-* entry in it.
    globalSetup: ["test/support/tmpdirSetup.ts"],
    // Before each file: the fork's event loop turned after every test, so vitest's RPC answers are
    // read (turnEventLoop.ts: else "Timeout calling onTaskUpdate" under load); a passing test's
    // console lines kept in the fork, a failing test's printed (quietConsole.ts); @effect/vitest's
    // default `it.effect` back in place (a layer(...) of the previous file leaves its own there);
    // after each file, the data dirs its tests made removed.
    setupFiles: [
      "test/support/turnEventLoop.ts",
      "test/support/quietConsole.ts",
      "test/support/effectVitestReset.ts",
      "test/support/tempDirCleanup.ts"
    ],
    // End-to-end tests start daemons and simulators on loopback ports; two cores keep this modest.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // AGENT_BRIDGE_TEST_ISOLATE=0: each fork keeps its module cache from one test file to the next.
    // Importing Effect, the MCP SDK and the sources again for each of ~90 files is most of the
    // "collect" phase (14 files: collect 44 s → 9 s). Not the default yet: on the loaded 2-core
    // machine such runs showed more vitest "Timeout calling onTaskUpdate" errors (36 against 1 in an
    // isolated run at lower load), which fail a run whose tests all pass.
    isolate: process.env["AGENT_BRIDGE_TEST_ISOLATE"] !== "0"
  }
})
