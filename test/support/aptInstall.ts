/**
 * Debian packages the tests install for themselves (nginx, postgresql, chromium), one install at a
 * time on the machine. vitest runs files in several processes at once, and on a fresh machine two
 * of them may need the same package together: the second `apt-get update` then failed on apt's lock
 * ("Could not get lock /var/lib/apt/lists/lock", exit 100) and failed its file. So every install goes
 * through one `flock` on a lock file of the machine, and inside it looks again: a package another
 * process installed meanwhile is not installed twice. apt's own lock is waited for too
 * (`DPkg::Lock::Timeout`), for an apt run that is not ours.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runProcess } from "./runProcess.ts"

/** The lock every test install takes (one per machine, whatever the checkout). */
export const APT_LOCK = path.join(os.tmpdir(), "agent-bridge-tests-apt.lock")
const FLOCK = "/usr/bin/flock"
/** How long apt waits for its own lock, and this waits for ours (seconds). */
const LOCK_WAIT_S = 900

export interface AptInstall {
  readonly packages: ReadonlyArray<string>
  /** Skip the install when this path exists once the lock is held (another process installed it). */
  readonly unless?: string
  readonly reinstall?: boolean
  readonly timeoutMs: number
  /** apt-get itself; a test gives a double. */
  readonly aptGet?: string
  readonly lockFile?: string
}

const quoted = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** `apt-get update` then `apt-get install`, under the machine's install lock; throws with apt's last lines. */
export const aptInstall = async (o: AptInstall): Promise<void> => {
  const apt = quoted(o.aptGet ?? "apt-get")
  const lockOption = `-o DPkg::Lock::Timeout=${LOCK_WAIT_S}`
  const install = [apt, "install", "-y", "-qq", lockOption, ...(o.reinstall === true ? ["--reinstall"] : []), ...o.packages.map(quoted)].join(" ")
  const script = `${o.unless === undefined ? "" : `[ -e ${quoted(o.unless)} ] && exit 0; `}${apt} update -qq ${lockOption} && ${install}`
  const locked = fs.existsSync(FLOCK) ? [FLOCK, ["-w", String(LOCK_WAIT_S), o.lockFile ?? APT_LOCK, "sh", "-c", script]] as const : ["sh", ["-c", script]] as const
  const r = await runProcess(locked[0], locked[1], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, timeoutMs: o.timeoutMs })
  if (r.status !== 0) {
    throw new Error(`apt-get install ${o.packages.join(" ")} exited ${r.status ?? r.signal}: ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`)
  }
}
