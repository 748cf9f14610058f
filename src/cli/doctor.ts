/**
 * `agent-bridge doctor`: one row per check, the `agent-bridge` row first; exit 1 when any check fails.
 * Checks: the configuration decodes, the database (the SQLite file, or the PostgreSQL of storage.url)
 * opens, migrates and takes a write, the data dir is private; the drop-in skills folder is readable by
 * other users (Hermes often runs as another user); each Hermes profile answers and accepts the bridge's key; the drop-in skills folder is in
 * the profile's `skills.external_dirs`; and which optional Hermes features the profile lacks.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { AppConfig, AppConfigLive } from "../config/AppConfig.ts"
import type { ResolvedConfig } from "../config/load.ts"
import { HermesClientForTools } from "../hermes/client/HermesClientLive.ts"
import { HermesClient, type HermesProfile } from "../hermes/client/HermesClient.ts"
import { featureGaps, optionalFeatures, type OptionalFeatures } from "../hermes/client/features.ts"
import { SimulatorInfo } from "../hermes/embedded.ts"
import { RedactorForConfig } from "../daemon/heldSecrets.ts"
import { pgServerName } from "../config/storageUrl.ts"
import { DbForStores } from "../storage/Db.ts"
import { hasFlag, type ParsedArgs } from "./args.ts"
import { dropinInside, readabilityProblems } from "../services/skill-store/dropinAccess.ts"
import { cliLoggingLayer } from "./runtime.ts"

export interface DoctorRow {
  readonly check: string
  readonly status: "ok" | "warn" | "fail"
  readonly detail: string
}

const bridgeRow = Effect.gen(function* () {
  const config = yield* AppConfig
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.zipRight(sql`CREATE TEMP TABLE IF NOT EXISTS doctor_probe (x INTEGER)`, sql`INSERT INTO doctor_probe VALUES (1)`)
  )
  // On PostgreSQL the data dir holds no database and may not exist yet; when it does, it still
  // holds the bridge's other files (drop-in skills, the admin key), so its mode is still checked.
  // Passable by others (0711) is how a Hermes of another user reaches the drop-in folder inside it.
  const mode = fs.existsSync(config.dataDir) ? fs.statSync(config.dataDir).mode & 0o777 : null
  const loose = mode !== null && (mode & 0o066) !== 0
  const url = config.storage.url
  const store = url === undefined ? `database writable in ${config.dataDir}` : `PostgreSQL store at ${pgServerName(Redacted.value(url))} writable`
  return {
    check: "agent-bridge",
    status: loose ? "warn" : "ok",
    detail: `config ${config.source ?? "(defaults)"} valid; ${store}${loose ? ` (data dir mode ${mode.toString(8)}: should be 700, or 711 when it holds the drop-in skills folder)` : ""}`
  } satisfies DoctorRow
}).pipe(
  Effect.catchAllCause((cause) => Effect.succeed<DoctorRow>({ check: "agent-bridge", status: "fail", detail: `database: ${String(cause).split("\n")[0]}` }))
)

/**
 * Whether a user other than the bridge's (Hermes's, on a shared box) can read the drop-in skills
 * folder: every parent passable, every folder in it listable, every file readable. A warning with
 * the fix when not: Hermes then fails every run with `Permission denied` on that folder.
 */
export const dropinRow = (config: ResolvedConfig): DoctorRow => {
  const check = "skills folder"
  try {
    if (!fs.existsSync(config.dropinDir)) {
      return { check, status: "ok", detail: `${config.dropinDir} does not exist yet (the daemon creates it, readable by other users)` }
    }
    const problems = readabilityProblems(config.dropinDir)
    if (problems.length === 0) return { check, status: "ok", detail: `${config.dropinDir} is readable by other users (a Hermes running as another user can load its skills)` }
    const fixes = [
      ...(dropinInside(config.dataDir, config.dropinDir) ? [`chmod 711 ${config.dataDir}`] : []),
      `chmod -R o+rX ${config.dropinDir}`,
      "and give each parent folder o+x"
    ]
    return {
      check,
      status: "warn",
      detail: `${config.dropinDir} is not readable by other users: a Hermes running as another user fails its runs with Permission denied. Not readable: ${problems.join(", ")}. Fix: ${fixes.join("; ")}`
    }
  } catch (e) {
    return { check, status: "warn", detail: `cannot inspect ${config.dropinDir}: ${e instanceof Error ? e.message : String(e)}` }
  }
}

const profileConfigFile = (config: ResolvedConfig, p: HermesProfile) =>
  p.name === "default" ? path.join(config.hermesHome, "config.yaml") : path.join(config.hermesHome, "profiles", p.name, "config.yaml")

/**
 * With no Hermes configured the profiles are the built-in simulator, which reads no `config.yaml`:
 * a real `~/.hermes/config.yaml` on the machine says nothing about it, so it is not checked.
 */
const simulatorSkillsRow = (config: ResolvedConfig, p: HermesProfile): DoctorRow => ({
  check: `${p.agent} skills`,
  status: "ok",
  detail: `built-in simulator (no Hermes configured): it reads no config.yaml; approved skills are written to ${config.dropinDir}`
})

const skillsRow = (config: ResolvedConfig, p: HermesProfile): DoctorRow => {
  const check = `${p.agent} skills`
  const file = profileConfigFile(config, p)
  let dirs: ReadonlyArray<unknown> = []
  try {
    const doc = YAML.parse(fs.readFileSync(file, "utf8")) as { skills?: { external_dirs?: unknown } } | null
    dirs = Array.isArray(doc?.skills?.external_dirs) ? doc.skills.external_dirs : []
  } catch {
    return { check, status: "warn", detail: `cannot read ${file}; add ${config.dropinDir} to skills.external_dirs there` }
  }
  const listed = dirs.some((d) => typeof d === "string" && path.resolve(d.replace(/^~(?=\/)/, process.env["HOME"] ?? "~")) === config.dropinDir)
  return listed
    ? { check, status: "ok", detail: `${config.dropinDir} is in skills.external_dirs` }
    : { check, status: "warn", detail: `${config.dropinDir} is not in skills.external_dirs of ${file}: approved skills will not reach Hermes` }
}

const profileRow = (p: HermesProfile) =>
  Effect.gen(function* () {
    const hermes = yield* HermesClient
    const health = yield* Effect.either(hermes.health(p).pipe(Effect.timeout("3 seconds")))
    if (health._tag === "Left") return { check: p.agent, status: "fail", detail: `${p.baseUrl} does not answer` } satisfies DoctorRow
    if (Option.isNone(p.key)) return { check: p.agent, status: "fail", detail: `${p.baseUrl} answers, but the bridge holds no key for it` } satisfies DoctorRow
    const models = yield* Effect.either(hermes.models(p).pipe(Effect.timeout("3 seconds")))
    if (models._tag === "Left") return { check: p.agent, status: "fail", detail: `${p.baseUrl} refused the bridge's key` } satisfies DoctorRow
    return { check: p.agent, status: "ok", detail: `${p.baseUrl} answers (version ${health.right.version ?? "unknown"}); key accepted; model ${models.right[0] ?? "?"}` } satisfies DoctorRow
  })

const FEATURE_WORDS: Readonly<Record<keyof OptionalFeatures, string>> = {
  steer: "steer",
  event_replay: "event replay",
  durable_idempotency: "durable idempotency"
}

/**
 * Which optional features the profile has and lacks, from `HermesClient.features`, the detection
 * the client acts on (`optionalFeatures`). Lacking one is no fault (the bridge adapts), so the row
 * is ok; only capabilities that cannot be read are a warning. Event replay is never known in this
 * process: it is seen on a run's stream, and the CLI opens none.
 */
const featuresRow = (p: HermesProfile) =>
  Effect.gen(function* () {
    const hermes = yield* HermesClient
    const check = `${p.agent} features`
    const read = yield* Effect.either(hermes.features(p).pipe(Effect.timeout("3 seconds")))
    if (read._tag === "Left") {
      return { check, status: "warn", detail: `capabilities could not be read (${read.left._tag}): which features this Hermes lacks is not known` } satisfies DoctorRow
    }
    const o = optionalFeatures(read.right)
    const { lacks, unknown } = featureGaps(o)
    const has = (Object.keys(o) as Array<keyof OptionalFeatures>).filter((n) => o[n] === true)
    const words = (names: ReadonlyArray<keyof OptionalFeatures>) => names.map((n) => FEATURE_WORDS[n]).join(", ")
    const parts = [
      ...(has.length > 0 ? [`has ${words(has)}`] : []),
      ...(lacks.length > 0 ? [`lacks ${words(lacks)}`] : []),
      ...(unknown.length > 0
        ? [`${words(unknown)} not known here (Hermes does not advertise it: agents_list shows what the daemon saw on a run's stream)`]
        : [])
    ]
    return { check, status: "ok", detail: parts.join("; ") } satisfies DoctorRow
  })

const render = (rows: ReadonlyArray<DoctorRow>) => {
  const w = Math.max(...rows.map((r) => r.check.length))
  return rows.map((r) => `${r.status.toUpperCase().padEnd(4)}  ${r.check.padEnd(w)}  ${r.detail}`).join("\n")
}

export const doctorRows = (config: ResolvedConfig) => {
  const base = Layer.mergeAll(AppConfigLive(config), RedactorForConfig(config))
  return Effect.gen(function* () {
    const hermes = yield* HermesClient
    const simulated = Option.isSome((yield* SimulatorInfo).url)
    const skills = simulated ? simulatorSkillsRow : skillsRow
    const first = yield* bridgeRow
    const dropin = dropinRow(config)
    const profiles = yield* Effect.forEach(
      hermes.profiles,
      (p) => Effect.map(Effect.zip(profileRow(p), featuresRow(p), { concurrent: true }), ([r, f]) => [r, f, skills(config, p)]),
      { concurrency: 4 }
    )
    return [first, dropin, ...profiles.flat()]
  }).pipe(Effect.provide(Layer.mergeAll(DbForStores(config), HermesClientForTools).pipe(Layer.provideMerge(base), Layer.provide(cliLoggingLayer))), Effect.scoped)
}

export const doctor = async (config: ResolvedConfig, args: ParsedArgs): Promise<number> => {
  const rows = await Effect.runPromise(
    doctorRows(config).pipe(
      Effect.catchAllCause((cause) => Effect.succeed<ReadonlyArray<DoctorRow>>([{ check: "agent-bridge", status: "fail", detail: String(cause).split("\n")[0] ?? "failed" }]))
    )
  )
  console.log(hasFlag(args, "json") ? JSON.stringify({ rows }, null, 2) : render(rows))
  return rows.some((r) => r.status === "fail") ? 1 : 0
}
