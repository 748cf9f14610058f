/**
 * The tests' package installs (test/support/aptInstall.ts) run one at a time on the machine: two
 * vitest processes installing at once made the second `apt-get update` fail on apt's lock. The apt
 * here is a double that fails as apt does when another run of it holds its lock.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { aptInstall } from "../support/aptInstall.ts"
import { tempDir } from "../support/tempDirs.ts"

/** An apt-get that exits 100 ("Could not get lock") when another run of it is inside, and logs each run. */
const fakeApt = (dir: string) => {
  const file = path.join(dir, "apt-get")
  fs.writeFileSync(file, `#!/bin/sh
if ! mkdir "${dir}/held" 2>/dev/null; then echo "E: Could not get lock ${dir}/held" >&2; exit 100; fi
echo "$*" >> "${dir}/runs"
sleep 0.3
rmdir "${dir}/held"
`, { mode: 0o755 })
  return file
}

describe("the tests' apt installs", () => {
  it("two at once both succeed, one after the other", async () => {
    const dir = tempDir()
    const aptGet = fakeApt(dir)
    const lockFile = path.join(dir, "lock")
    await Promise.all([
      aptInstall({ packages: ["nginx"], aptGet, lockFile, timeoutMs: 30_000 }),
      aptInstall({ packages: ["postgresql"], aptGet, lockFile, timeoutMs: 30_000 })
    ])
    const runs = fs.readFileSync(path.join(dir, "runs"), "utf8").trim().split("\n")
    expect(runs.filter((r) => r.startsWith("update")).length).toBe(2)
    expect(runs.filter((r) => r.startsWith("install")).length).toBe(2)
  }, 60_000)

  it("skips the install when what it installs appeared while it waited", async () => {
    const dir = tempDir()
    const aptGet = fakeApt(dir)
    const present = path.join(dir, "nginx")
    fs.writeFileSync(present, "")
    await aptInstall({ packages: ["nginx"], unless: present, aptGet, lockFile: path.join(dir, "lock"), timeoutMs: 30_000 })
    expect(fs.existsSync(path.join(dir, "runs"))).toBe(false)
  })

  it("a failed install is an error with apt's last lines", async () => {
    const dir = tempDir()
    const aptGet = path.join(dir, "apt-get")
    fs.writeFileSync(aptGet, "#!/bin/sh\necho 'E: Unable to locate package nosuch' >&2\nexit 100\n", { mode: 0o755 })
    await expect(aptInstall({ packages: ["nosuch"], aptGet, lockFile: path.join(dir, "lock"), timeoutMs: 30_000 })).rejects.toThrow(/exited 100: E: Unable to locate package nosuch/)
  })
})
