/**
 * A client tool run in its interactive mode inside a pseudo-terminal: a tmux server of its own (its
 * socket in the test's folder, so `kill` ends exactly this one), one detached session of a fixed
 * size running the tool with exactly the environment given (`env -i`), and the pane read back as
 * text. Claude Code turns some features on only for its interactive entrypoint, which needs a TTY.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export const TMUX = "/usr/bin/tmux"

export interface TerminalSession {
  /** The pane's text now, wrapped lines joined. */
  readonly screen: () => string
  /** Types `text` literally (no Enter: wait for it on screen, then `enter`). */
  readonly type: (text: string) => void
  readonly enter: () => void
  /**
   * Ends the tool (its whole process group: SIGTERM, then SIGKILL after 5 s) and the tmux server,
   * and returns once no process of that group is left, so nothing still writes into the test's
   * folder when it is removed; safe to call twice.
   */
  readonly kill: () => Promise<void>
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

export const startTerminal = (options: {
  readonly dir: string
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
  readonly cwd: string
}): TerminalSession => {
  const socket = path.join(options.dir, `${options.name}.tmux`)
  const script = path.join(options.dir, `${options.name}.sh`)
  const stderr = path.join(options.dir, `${options.name}.stderr`)
  const env = Object.entries(options.env).map(([k, v]) => `${k}=${quote(v)}`).join(" ")
  fs.writeFileSync(script, `#!/bin/bash\ncd ${quote(options.cwd)} || exit 1\nexec env -i ${env} ${[options.command, ...options.args].map(quote).join(" ")} 2>>${quote(stderr)}\n`, { mode: 0o755 })
  const tmux = (...args: ReadonlyArray<string>) => execFileSync(TMUX, ["-S", socket, "-f", "/dev/null", ...args], { encoding: "utf8", timeout: 30_000 })
  tmux("new-session", "-d", "-x", "200", "-y", "50", script)
  // The pane's first process is the tool itself (the script `exec`s it), the leader of the pane's
  // process group: Claude Code's helpers (and anything they spawn) stay in that group.
  const pid = Number(tmux("display-message", "-p", "#{pane_pid}").trim())
  let alive = true
  return {
    screen: () => tmux("capture-pane", "-p", "-J"),
    type: (text) => void tmux("send-keys", "-l", text),
    enter: () => void tmux("send-keys", "Enter"),
    kill: async () => {
      if (!alive) return
      alive = false
      signalGroup(pid, "SIGTERM")
      if (!(await groupGone(pid, 5_000))) {
        signalGroup(pid, "SIGKILL")
        await groupGone(pid, 5_000)
      }
      try {
        tmux("kill-server")
      } catch {
        // the server ended with its last session (the tool exited): nothing left to end
      }
    }
  }
}

/** Sends `signal` to the process group led by `pid`; false when no process of it is left. */
const signalGroup = (pid: number, signal: NodeJS.Signals | 0): boolean => {
  if (!Number.isInteger(pid) || pid <= 1) return false
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

/** Polls (every 50 ms, at most `ms`) until the group has no process; true when it is gone. */
const groupGone = async (pid: number, ms: number): Promise<boolean> => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (!signalGroup(pid, 0)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return !signalGroup(pid, 0)
}
