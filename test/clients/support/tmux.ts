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
  /** Ends the tmux server and with it the tool; safe to call twice. */
  readonly kill: () => void
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
  let alive = true
  return {
    screen: () => tmux("capture-pane", "-p", "-J"),
    type: (text) => void tmux("send-keys", "-l", text),
    enter: () => void tmux("send-keys", "Enter"),
    kill: () => {
      if (!alive) return
      alive = false
      try {
        tmux("kill-server")
      } catch {
        // the session already ended (the tool exited): nothing left to end
      }
    }
  }
}
