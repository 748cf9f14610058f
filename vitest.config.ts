import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A fresh temp folder per run; the run fails if a test leaves an agent-bridge-* entry in it.
    globalSetup: ["test/support/tmpdirSetup.ts"],
    // Before each file: @effect/vitest's default `it.effect` back in place (a layer(...) of the previous
    // file leaves its own there); after each file, the data dirs its tests made with tempDir removed.
    setupFiles: ["test/support/effectVitestReset.ts", "test/support/tempDirCleanup.ts"],
    // End-to-end tests start daemons and simulators on loopback ports; two cores keep this modest.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each fork keeps its module cache from one test file to the next: importing Effect, the MCP SDK
    // and the sources again for each of ~90 files was half of the suite's time (the "collect"
    // phase). The tests share no module state (no vi.mock, no stubbed globals), and every test
    // builds its own layers, daemons and data dirs.
    isolate: false
  }
})
