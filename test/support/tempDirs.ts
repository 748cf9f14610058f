/**
 * Temp dirs for tests, removed after the test file that made them (test/support/tempDirCleanup.ts,
 * a vitest setup file, calls `removeTempDirs` in an afterAll). Kept apart from daemon.ts so the
 * setup file imports nothing heavy.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const made = new Set<string>()

/** A fresh dir under os.tmpdir(), removed after the current test file. */
export const tempDir = (prefix = "agent-bridge-test-") => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.add(dir)
  return dir
}

/** Removes every dir `tempDir` made so far (after the file's own afterAll hooks closed its daemons). */
export const removeTempDirs = () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  made.clear()
}
