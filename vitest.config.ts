import { configDefaults, defineConfig } from "vitest/config"
import { PROCESS_FILES } from "./test/processFiles.ts"

// Forks of the ordinary suite (AGENT_BRIDGE_TEST_FORKS to change it). Four on two cores: most of
// the suite waits (on daemons, simulators, timers; about 0.9 cores busy on average at three forks),
// and min = max because a pool that shrinks and grows again meets tinypool's "Terminating worker
// thread" rejection (vitest issues 8133 and 8564).
const FORKS = Number(process.env["AGENT_BRIDGE_TEST_FORKS"] ?? 4)

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The multi-process files run in their own suite (`npm run test:processes`, test/processFiles.ts).
    exclude: [...configDefaults.exclude, ...PROCESS_FILES],
    // A bound, not a speed goal: a hung test still fails, later. The 30 s it was ended passing
    // CPU-bound tests of eight files (the redaction sweeps, property tests, the source scans) in one
    // whole run on the 2-core machine at load average 12 to 41 (other jobs), where a CLI start that
    // needs 5 s of CPU took 33 to 40 s. What a test proves about time it bounds itself (its waits).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // A fresh temp folder per run; the run fails if a test leaves an agent-bridge-* entry in it.
    globalSetup: ["test/support/tmpdirSetup.ts"],
    // Beside the default report: a run failed by vitest's own error (an RPC timeout) names the file
    // that was running and says whether every test passed (test/support/vitestOwnErrors.ts).
    reporters: ["default", "./test/support/vitestOwnErrors.ts"],
    // Before each file: a test that holds its fork's event loop over 2 s failed, and the loop turned
    // after every test, so vitest's RPC answers are read (loopGuard.ts: else "Timeout calling
    // onTaskUpdate" under load); a passing test's
    // console lines kept in the fork, a failing test's printed (quietConsole.ts); @effect/vitest's
    // default `it.effect` back in place (a layer(...) of the previous file leaves its own there);
    // after each file, the data dirs its tests made removed; one fast-check seed (fastCheckSeed.ts).
    setupFiles: [
      "test/support/fastCheckSeed.ts",
      "test/support/loopGuard.ts",
      "test/support/quietConsole.ts",
      "test/support/effectVitestReset.ts",
      "test/support/tempDirCleanup.ts"
    ],
    // End-to-end tests start daemons and simulators on loopback ports (FORKS above).
    pool: "forks",
    poolOptions: { forks: { maxForks: FORKS, minForks: FORKS } },
    // Each fork keeps its module cache from one test file to the next: importing Effect, the MCP SDK
    // and the sources again for each file was most of the "collect" phase (15 files on the loaded
    // 2-core machine: collect 132 s and 116 s isolated, 33 s and 32 s not). It was kept off while
    // such runs showed more "Timeout calling onTaskUpdate"; their cause was a fork whose loop did not
    // turn for a whole file (loopGuard.ts), isolated or not. AGENT_BRIDGE_TEST_ISOLATE=1 gives
    // each file a fresh fork again (to tell a leak between files from a fault of the file).
    isolate: process.env["AGENT_BRIDGE_TEST_ISOLATE"] === "1"
  }
})
