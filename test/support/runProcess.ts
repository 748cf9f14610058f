/**
 * A child process run to its end without blocking the worker's event loop. spawnSync would block it:
 * under load a child that takes a minute keeps the worker from answering vitest's own messages, and
 * vitest reports "Timeout calling onTaskUpdate" (60 s) as an unhandled error that fails the run.
 */
import { spawn } from "node:child_process"

export interface ProcessResult {
  readonly status: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `command args` to its end (killed with SIGKILL after `timeoutMs`); never rejects. */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {}
): Promise<ProcessResult> =>
  new Promise((resolve) => {
    const child = spawn(command, args as Array<string>, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000)
    child.on("error", (e) => {
      clearTimeout(timer)
      resolve({ status: null, signal: null, stdout, stderr: stderr + String(e) })
    })
    child.on("close", (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr })
    })
  })
