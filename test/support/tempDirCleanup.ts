/**
 * Runs before every test file (vitest setupFiles): after the file, remove the data dirs its tests
 * made with `tempDir`/`testConfig`. Registered before the file's own hooks, this afterAll runs after
 * them (hooks unwind in reverse), so the daemons using the dirs are closed by then.
 */
import { afterAll } from "vitest"
import { removeTempDirs } from "./tempDirs.ts"

afterAll(() => removeTempDirs())
