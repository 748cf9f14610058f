/**
 * Where scripts/clients-install.sh put the client tools, and how to run one: under Node 22, with an
 * isolated HOME, telemetry and update checks off, and every proxy variable pointed at a loopback
 * sink that fails the test if anything tries to leave the machine (see proxySink.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type ProcessResult, runProcess } from "../../support/runProcess.ts"
import { proxyEnv } from "./proxySink.ts"

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
export const CACHE = process.env["CLIENTS_CACHE_DIR"] ?? path.join(REPO, ".cache", "clients")
export const NODE22_BIN = path.join(CACHE, "node22", "node_modules", "node", "bin")
export const TOOLS = path.join(CACHE, "tools", "node_modules")
export const BIN = path.join(TOOLS, ".bin")

/** The versions the suite proves (docs/CONNECT.md's matrix names the same ones). */
export const VERSIONS = {
  node: "v22.23.3",
  conformance: "0.1.16",
  conformanceNext: "0.2.0-alpha.12",
  inspector: "2.12.0",
  claudeCode: "2.1.332",
  codex: "0.171.0"
} as const

/** Fails loudly when the installer has not run: a missing client is a failure, never a skip. */
export const requireInstalled = (...files: ReadonlyArray<string>): void => {
  for (const f of [path.join(NODE22_BIN, "node"), ...files]) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run \`npm run test:clients\` (scripts/clients-install.sh installs the client tools)`)
  }
}

export interface ToolEnvOptions {
  readonly home: string
  /** The loopback proxy sink's URL; every *_PROXY variable points there. */
  readonly proxy: string
  readonly extra?: Record<string, string>
}

/**
 * A clean environment: nothing inherited but PATH's system part and locale, so no key, config or
 * proxy of the machine's leaks in. Loopback is exempt from the proxy, so the daemon and our fake
 * model APIs are reached directly; anything else lands on the sink.
 */
export const toolEnv = ({ home, proxy, extra = {} }: ToolEnvOptions): Record<string, string> => ({
  PATH: `${NODE22_BIN}:${BIN}:/usr/local/bin:/usr/bin:/bin`,
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config"),
  XDG_CACHE_HOME: path.join(home, ".cache"),
  XDG_DATA_HOME: path.join(home, ".local", "share"),
  TMPDIR: path.join(home, "tmp"),
  LANG: "C.UTF-8",
  TERM: "dumb",
  NO_COLOR: "1",
  CI: "true",
  ...proxyEnv(proxy),
  npm_config_update_notifier: "false",
  ...extra
})

export const makeHome = (root: string, name: string): string => {
  const home = path.join(root, name)
  fs.mkdirSync(path.join(home, "tmp"), { recursive: true })
  return home
}

/**
 * Removes a test's folder. A client's own late writes (a session file, a cache flush by a helper
 * that outlives its parent for a moment) can land while the tree is walked, which fails a plain
 * removal with ENOTEMPTY: Node retries those (and EBUSY) with a growing pause.
 */
export const removeDir = (dir: string | undefined): void => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
}

/** Runs a command to its end (killed after `timeoutMs`), with no stdin, in `HOME` unless told. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly env: Record<string, string>; readonly cwd?: string; readonly timeoutMs: number }
): Promise<ProcessResult> => {
  const cwd = options.cwd ?? options.env["HOME"]
  return runProcess(command, args, { env: options.env, timeoutMs: options.timeoutMs, ...(cwd === undefined ? {} : { cwd }) })
}

export const describeRun = (r: ProcessResult): string =>
  `exit ${r.status ?? r.signal}\n--- stdout ---\n${r.stdout.slice(-8000)}\n--- stderr ---\n${r.stderr.slice(-8000)}`
