/**
 * The suite's temp folder (vitest globalSetup): every run gets a fresh folder of its own, and the
 * workers (and the daemons and simulators they spawn, which inherit the environment) see it as
 * `os.tmpdir()` through TMPDIR. At teardown the run fails when anything named `agent-bridge-*` is
 * left in it: a test that creates a data dir removes it. Other runs on the same machine have their
 * own folders, so their files never count against this one. The folder is removed either way.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const LEAK_PREFIX = "agent-bridge-"

/** The entries a finished run must not leave behind. */
export const leftovers = (dir: string): ReadonlyArray<string> =>
  fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith(LEAK_PREFIX)).sort() : []

export default function setup(): () => void {
  const outer = os.tmpdir()
  const dir = fs.mkdtempSync(path.join(outer, "vitest-run-"))
  const previous = process.env["TMPDIR"]
  process.env["TMPDIR"] = dir
  return () => {
    if (previous === undefined) delete process.env["TMPDIR"]
    else process.env["TMPDIR"] = previous
    const left = leftovers(dir)
    fs.rmSync(dir, { recursive: true, force: true })
    if (left.length > 0) {
      throw new Error(
        `tests left ${left.length} ${LEAK_PREFIX}* entr${left.length === 1 ? "y" : "ies"} in the temp folder (removed now): ${left.join(", ")}`
      )
    }
  }
}
