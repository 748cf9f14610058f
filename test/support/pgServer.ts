/**
 * A throwaway PostgreSQL for the tests (issue 24 item 6): Debian's `initdb` and `pg_ctl` (PATH first,
 * then /usr/lib/postgresql/<newest>/bin; as root with apt-get, the `postgresql` package installed once
 * when they are absent), a cluster in a temp folder, trust authentication for 127.0.0.1 and the unix
 * socket only, listening on a free loopback port with its socket in the temp folder, `fsync=off`.
 *
 * PostgreSQL refuses to run as root, so as root the cluster belongs to an unprivileged user
 * (`postgres` when it exists, else `nobody`) and initdb/pg_ctl run as that user through `runuser`;
 * its folder is then made under /tmp, since the run's own temp folder is 0700 root.
 *
 * Per file, not a globalSetup: only the files that use it pay for a cluster (initdb takes a few
 * seconds on a loaded machine), and the collect phase of every other file stays as it was. Use
 * `usePostgres()` in a describe: it starts the server in beforeAll, stops and removes it in
 * afterAll, and each test takes a database of its own with `pg.database(ctx)`. When the server cannot
 * start the tests are skipped with the reason, unless `CI` is set: then they fail.
 *
 * Every command is bounded in time and runs asynchronously (runProcess.ts). No vitest import here:
 * the PostgreSQL project's globalSetup (pgGlobalSetup.ts) starts its server with this module, and
 * globalSetup runs outside vitest's workers; `usePostgres` (postgres.ts) is the per-file form.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { aptInstall } from "./aptInstall.ts"
import { freeLoopbackPort } from "./freePort.ts"
import { runProcess } from "./runProcess.ts"

const log = (line: string) => process.stderr.write(`[postgres] ${line}\n`)

/** The superuser initdb creates; trust authentication, so it has no password. */
export const PG_USER = "bridge_test"
const INSTALL_TIMEOUT_MS = 15 * 60_000
const STEP_TIMEOUT_MS = 120_000

export interface PgServer {
  readonly host: "127.0.0.1"
  readonly port: number
  /** The cluster's folder (data, socket, log). */
  readonly dir: string
  /** `postgres://bridge_test@127.0.0.1:<port>/<database>`. */
  readonly url: (database: string) => string
  /** Creates an empty database (a fresh name when none is given) and returns its URL. */
  readonly createDatabase: (name?: string) => Promise<string>
  /** Stops the server (immediate mode) and removes its folder. Idempotent. */
  readonly stop: () => Promise<void>
  /** Stops the server as an operator's restart does (`pg_ctl stop -m fast`), keeping its folder. */
  readonly stopServer: () => Promise<void>
  /** Starts a stopped server again: the same port and data folder. */
  readonly startServer: () => Promise<void>
}

const isRoot = () => process.getuid?.() === 0

/** The folder holding `initdb` and `pg_ctl` (links resolved): PATH first, then the newest /usr/lib/postgresql/N/bin. */
export const findPgBin = (
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = "/usr/lib/postgresql"
): string | undefined => {
  const has = (dir: string) => fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"))
  // A PATH entry may hold links to them only (/usr/local/bin): the folder they point into also
  // holds createdb and psql.
  for (const dir of (env["PATH"] ?? "").split(path.delimiter)) {
    if (dir !== "" && has(dir)) return path.dirname(fs.realpathSync(path.join(dir, "initdb")))
  }
  const versions = fs.existsSync(debianRoot)
    ? fs.readdirSync(debianRoot).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    : []
  return versions.map((v) => path.join(debianRoot, v, "bin")).find(has)
}

/** Runs a step; a non-zero exit is an error with the end of its output. */
const run = async (cmd: string, args: ReadonlyArray<string>, timeoutMs = STEP_TIMEOUT_MS, env: NodeJS.ProcessEnv = process.env) => {
  const r = await runProcess(cmd, args, { env, timeoutMs })
  if (r.status !== 0) {
    const tail = `${r.stderr}\n${r.stdout}`.trim().split("\n").slice(-4).join(" / ")
    throw new Error(`${path.basename(cmd)} exited ${r.status ?? r.signal}: ${tail}`)
  }
  return r
}

/** Finds the binaries, installing Debian's package first when absent and allowed (root with apt-get). */
export const ensurePgBin = async (): Promise<string> => {
  const found = findPgBin()
  if (found !== undefined) return found
  if (!isRoot() || !fs.existsSync("/usr/bin/apt-get")) {
    throw new Error("no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin; install Debian's postgresql package")
  }
  log("installing Debian's postgresql with apt-get (about 50 MB, once)")
  // Another process may have installed it while this one waited for the install lock.
  await aptInstall({ packages: ["postgresql"], unless: "/usr/lib/postgresql", timeoutMs: INSTALL_TIMEOUT_MS })
  const after = findPgBin()
  if (after === undefined) throw new Error("apt-get installed postgresql but no initdb/pg_ctl was found")
  return after
}

/** The unprivileged user that owns the cluster when the tests run as root. */
const clusterOwner = async (): Promise<string> => ((await runProcess("id", ["-u", "postgres"], { timeoutMs: 10_000 })).status === 0 ? "postgres" : "nobody")

/** Starts a cluster; throws with the reason when it cannot. */
export const startPostgres = async (): Promise<PgServer> => {
  const bin = await ensurePgBin()
  const root = isRoot()
  const owner = root ? await clusterOwner() : undefined
  const dir = fs.mkdtempSync(path.join(root ? "/tmp" : os.tmpdir(), "agent-bridge-pg-"))
  const data = path.join(dir, "data")
  const logFile = path.join(dir, "server.log")
  // As root: the steps run as `owner`, which must own the folder; HOME and cwd it can read.
  const as = async (tool: string, args: ReadonlyArray<string>, timeoutMs = STEP_TIMEOUT_MS) => {
    const file = path.join(bin, tool)
    const env = { ...process.env, HOME: dir, LC_ALL: "C" }
    return owner === undefined ? run(file, args, timeoutMs, env) : run("runuser", ["-u", owner, "--", file, ...args], timeoutMs, env)
  }
  let started = false
  const stop = async () => {
    if (started) {
      started = false
      await stopQuietly(as, ["-D", data, "-m", "immediate", "-w", "-t", "60", "stop"])
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    if (owner !== undefined) await run("chown", [owner, dir])
    await as("initdb", ["-D", data, "-U", PG_USER, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"])
    // Trust for the socket and 127.0.0.1 only (initdb's own file also trusts ::1 and replication).
    fs.writeFileSync(path.join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n")
    // A port freed a moment ago may be taken by another test's server before ours binds: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort()
      const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=100"].join(" ")
      try {
        await as("pg_ctl", ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "90", "start"], 120_000)
        started = true
      } catch (e) {
        const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : ""
        if (attempt < 3 && /could not bind|Address already in use/i.test(text)) continue
        throw new Error(`${e instanceof Error ? e.message : String(e)}; log: ${text.trim().split("\n").slice(-3).join(" / ")}`)
      }
      const url = (database: string) => `postgres://${PG_USER}@127.0.0.1:${port}/${database}`
      let made = 0
      const createDatabase = async (name?: string) => {
        const db = name ?? `t${process.pid}_${++made}`
        await run(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", PG_USER, db])
        return url(db)
      }
      const stopServer = async () => {
        if (!started) return
        await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
        started = false
      }
      const startServer = async () => {
        if (started) return
        await as("pg_ctl", ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "90", "start"], 120_000)
        started = true
      }
      return { host: "127.0.0.1", port, dir, url, createDatabase, stop, stopServer, startServer }
    }
  } catch (e) {
    await stop().catch(() => undefined)
    throw e
  }
}

/** pg_ctl stop, its failure logged rather than thrown (teardown must still remove the folder). */
const stopQuietly = async (as: (tool: string, args: ReadonlyArray<string>) => Promise<unknown>, args: ReadonlyArray<string>) => {
  try {
    await as("pg_ctl", args)
  } catch (e) {
    log(`stopping: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** What `usePostgres` decides when the server cannot start: fail under CI, else skip with the reason. */
export const onStartFailure = (reason: string, env: NodeJS.ProcessEnv = process.env): { readonly skip: string } => {
  if (env["CI"] !== undefined && env["CI"] !== "" && env["CI"] !== "0" && env["CI"] !== "false") {
    throw new Error(`PostgreSQL for the tests could not start, and CI is set (never skipped there): ${reason}`)
  }
  return { skip: `PostgreSQL tests skipped: ${reason}` }
}

