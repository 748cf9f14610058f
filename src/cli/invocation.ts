/**
 * How to tell the operator to run the CLI. Installed globally (or linked), `agent-bridge` is on PATH;
 * from a clone it is not, and the command that works is `npx agent-bridge`. PATH entries that npm
 * or npx add for the duration of one command (`node_modules/.bin`, npx's cache) do not count: the
 * operator's next shell does not have them.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const TRANSIENT = /node_modules[\\/]\.bin|[\\/]_npx[\\/]/

const isExecutable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** `agent-bridge` when a lasting PATH entry has it, else `npx agent-bridge`. */
export const cliCommand = (pathVar: string | undefined = process.env["PATH"]): string => {
  const dirs = (pathVar ?? "").split(path.delimiter).filter((d) => d !== "" && !TRANSIENT.test(d))
  return dirs.some((d) => isExecutable(path.join(d, "agent-bridge"))) ? "agent-bridge" : "npx agent-bridge"
}
