/**
 * The skills on disk: hal0's shipped skills (read-only, in the package) and the operator's drop-in
 * directory, which Hermes loads through `skills.external_dirs`. Reads list and open both; writes touch
 * the drop-in directory only, one at a time, and always park what they replace or remove.
 *
 * A write is atomic per folder: the new version is written in full to a staging folder inside the
 * drop-in directory (same file system) and renamed into place, so Hermes never sees half a skill.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { AppConfig } from "../../config/AppConfig.ts"
import { type Internal, SkillInvalid, type StoreUnavailable, SkillNotFound, SkillReadonly } from "../../domain/errors.ts"
import type { InstalledSkill } from "../../domain/skills/diff.ts"
import { exists, io, moveDir, randomSuffix, readText, writeSkillFolder } from "./disk.ts"
import { forgetNote, listParked, park, type ParkedVersion, parkedDir } from "./parking.ts"
import { scanRoot, type StoredSkill } from "./scan.ts"
import { DROPIN_DIR_MODE, openDropinForHermes } from "./dropinAccess.ts"

export type { ParkedVersion } from "./parking.ts"
export type { StoredSkill } from "./scan.ts"

export interface SkillContents {
  readonly skillMd: string
  readonly files: Readonly<Record<string, string>>
}

export interface SkillDirs {
  readonly shippedDir: string
  readonly dropinDir: string
  /** `<data_dir>/skills-parked`. */
  readonly parkedDir: string
}

export interface SkillStoreShape {
  readonly dirs: SkillDirs
  /** Shipped skills, then drop-in skills, each sorted by name. */
  readonly list: Effect.Effect<ReadonlyArray<StoredSkill>, Internal | StoreUnavailable>
  /** The skill a read of `name` opens: the shipped one if there is one, else the drop-in one. */
  readonly find: (name: string) => Effect.Effect<Option.Option<StoredSkill>, Internal | StoreUnavailable>
  readonly isShipped: (name: string) => Effect.Effect<boolean, Internal | StoreUnavailable>
  readonly findDropin: (name: string) => Effect.Effect<Option.Option<StoredSkill>, Internal | StoreUnavailable>
  /** Why `name` cannot be written in the drop-in directory (a non-skill folder holds it), or none. */
  readonly blocked: (name: string) => Effect.Effect<Option.Option<string>, Internal | StoreUnavailable>
  /** At most `maxBytes` of the skill's SKILL.md; `complete` is false when it is longer. */
  readonly readSkillMd: (skill: StoredSkill, maxBytes: number) => Effect.Effect<{ readonly text: string; readonly complete: boolean }, Internal | StoreUnavailable>
  /** The installed drop-in version of `name` as text, for a diff against a card. */
  readonly installed: (name: string) => Effect.Effect<Option.Option<InstalledSkill>, Internal | StoreUnavailable>
  /** Writes `name` atomically; the version it replaces is parked and returned. */
  readonly install: (name: string, contents: SkillContents, reason: string) => Effect.Effect<Option.Option<ParkedVersion>, Internal | StoreUnavailable | SkillReadonly | SkillInvalid>
  /** Parks and removes the drop-in `name`; none when there was nothing to remove. */
  readonly remove: (name: string, reason: string) => Effect.Effect<Option.Option<ParkedVersion>, Internal | StoreUnavailable | SkillReadonly>
  /** Parked versions of `name` (or of all skills), newest first. */
  /**
   * Takes back an `install` (`installed`: its folder is removed) or a `remove` whose inbox row could
   * not be closed: the version it parked goes back where it was, so the drop-in folder is as before.
   */
  readonly undo: (name: string, parked: Option.Option<ParkedVersion>, installed: boolean) => Effect.Effect<void, Internal | StoreUnavailable>
  readonly parked: (name?: string) => Effect.Effect<ReadonlyArray<ParkedVersion>, Internal | StoreUnavailable>
  /** Puts a parked version back (parking whatever is installed now). */
  readonly restore: (
    name: string,
    version: string
  ) => Effect.Effect<{ readonly restored: ParkedVersion; readonly parked: Option.Option<ParkedVersion> }, Internal | StoreUnavailable | SkillReadonly | SkillNotFound | SkillInvalid>
}

export class SkillStore extends Context.Tag("agent-bridge/SkillStore")<SkillStore, SkillStoreShape>() {}

/** The `skills/` folder that ships with the package (beside `src/`). */
export const SHIPPED_SKILLS_DIR = fileURLToPath(new URL("../../../skills/", import.meta.url))

const INSTALLED_FILE_MAX = 256 * 1024
const INSTALLED_SKILL_MD_MAX = 1024 * 1024

const readonlyError = (name: string) =>
  new SkillReadonly({ message: `'${name}' is one of hal0's shipped skills, which cannot be changed or deleted` })

const plainSegment = (s: string) => s !== "" && !s.startsWith(".") && !/[\\/\0]/.test(s)

/** A parked note's location, if it is `<name>` or `<category>/<name>` of plain names; else `<name>`. */
const safeLocation = (name: string, location: string): string => {
  const parts = location.split("/")
  return parts.length <= 2 && parts.every(plainSegment) && parts[parts.length - 1] === name ? location : name
}

export const makeSkillStore = (dirs: SkillDirs) =>
  Effect.gen(function* () {
    const writes = yield* Effect.makeSemaphore(1)
    const now = Clock.currentTimeMillis

    const shipped = io("scan shipped skills", () => scanRoot(dirs.shippedDir, "shipped"))
    const dropin = io("scan drop-in skills", () => scanRoot(dirs.dropinDir, "dropin"))
    const byName = (skills: ReadonlyArray<StoredSkill>, name: string) => Option.fromNullable(skills.find((s) => s.name === name))

    const isShipped = (name: string) => Effect.map(shipped, (s) => Option.isSome(byName(s, name)))
    const findDropin = (name: string) => Effect.map(dropin, (s) => byName(s, name))
    const find = (name: string) =>
      Effect.flatMap(shipped, (s) => Option.match(byName(s, name), { onSome: (x) => Effect.succeedSome(x), onNone: () => findDropin(name) }))

    const blocked = (name: string) =>
      Effect.gen(function* () {
        if (Option.isSome(yield* findDropin(name))) return Option.none()
        const top = path.join(dirs.dropinDir, name)
        return (yield* io("inspect the drop-in directory", () => exists(top)))
          ? Option.some(`the drop-in directory already holds a folder '${name}' that is not a skill (a category folder?)`)
          : Option.none()
      })

    const installed = (name: string) =>
      Effect.flatMap(findDropin(name), (found) =>
        Option.match(found, {
          onNone: () => Effect.succeedNone,
          onSome: (skill) =>
            io("read the installed skill", async (): Promise<Option.Option<InstalledSkill>> => {
              const md = await readText(path.join(skill.dir, "SKILL.md"), INSTALLED_SKILL_MD_MAX)
              const files: Record<string, string> = {}
              const binaryFiles: Array<string> = []
              for (const f of skill.files) {
                const r = await readText(path.join(skill.dir, f), INSTALLED_FILE_MAX)
                if (r.utf8 && r.complete) files[f] = r.text
                else binaryFiles.push(f)
              }
              return Option.some({ skillMd: md.text, files, binaryFiles })
            })
        })
      )

    const install = (name: string, contents: SkillContents, reason: string) =>
      writes.withPermits(1)(
        Effect.gen(function* () {
          if (yield* isShipped(name)) return yield* readonlyError(name)
          const block = yield* blocked(name)
          if (Option.isSome(block)) return yield* new SkillInvalid({ message: block.value })
          const existing = yield* findDropin(name)
          const at = yield* now
          return yield* io(`install skill '${name}'`, async () => {
            await fs.mkdir(dirs.dropinDir, { recursive: true, mode: DROPIN_DIR_MODE })
            await fs.chmod(dirs.dropinDir, (await fs.stat(dirs.dropinDir)).mode & 0o7777 | DROPIN_DIR_MODE)
            const staging = path.join(dirs.dropinDir, ".staging", randomSuffix())
            const staged = path.join(staging, name)
            try {
              await writeSkillFolder(staged, contents.skillMd, contents.files)
              const target = Option.match(existing, { onNone: () => path.join(dirs.dropinDir, name), onSome: (s) => s.dir })
              let parked: ParkedVersion | null = null
              if (Option.isSome(existing)) {
                const location = path.relative(dirs.dropinDir, existing.value.dir).split(path.sep).join("/")
                parked = await park(dirs.parkedDir, name, existing.value.dir, location, reason, at)
              }
              try {
                await fs.rename(staged, target)
              } catch (e) {
                // Put the previous version back so a failed write leaves the skill as it was.
                if (parked !== null) {
                  await moveDir(path.join(dirs.parkedDir, name, parked.version), target)
                  await forgetNote(dirs.parkedDir, name, parked.version)
                }
                throw e
              }
              return Option.fromNullable(parked)
            } finally {
              await fs.rm(staging, { recursive: true, force: true })
              await fs.rmdir(path.join(dirs.dropinDir, ".staging")).catch(() => undefined)
            }
          })
        })
      )

    const remove = (name: string, reason: string) =>
      writes.withPermits(1)(
        Effect.gen(function* () {
          if (yield* isShipped(name)) return yield* readonlyError(name)
          const existing = yield* findDropin(name)
          if (Option.isNone(existing)) return Option.none<ParkedVersion>()
          const at = yield* now
          const location = path.relative(dirs.dropinDir, existing.value.dir).split(path.sep).join("/")
          return Option.some(yield* io(`remove skill '${name}'`, () => park(dirs.parkedDir, name, existing.value.dir, location, reason, at)))
        })
      )

    const undo = (name: string, previous: Option.Option<ParkedVersion>, installed: boolean) =>
      writes.withPermits(1)(
        Effect.gen(function* () {
          const current = installed ? yield* findDropin(name) : Option.none<StoredSkill>()
          yield* io(`take back the change to skill '${name}'`, async () => {
            if (Option.isSome(current)) await fs.rm(current.value.dir, { recursive: true, force: true })
            if (Option.isSome(previous)) {
              const p = previous.value
              await moveDir(path.join(dirs.parkedDir, name, p.version), path.join(dirs.dropinDir, ...safeLocation(name, p.location).split("/")))
              await forgetNote(dirs.parkedDir, name, p.version)
            }
          })
        })
      )

    const parked = (name?: string) =>
      name !== undefined && !plainSegment(name) ? Effect.succeed([]) : io("list parked skills", () => listParked(dirs.parkedDir, name))

    const restore = (name: string, version: string) =>
      writes.withPermits(1)(
        Effect.gen(function* () {
          if (yield* isShipped(name)) return yield* readonlyError(name)
          const source = plainSegment(name) ? yield* io("find a parked version", () => parkedDir(dirs.parkedDir, name, version)) : null
          const note = (yield* parked(name)).find((p) => p.version === version)
          if (source === null || note === undefined) {
            return yield* new SkillNotFound({ message: `no parked version '${version}' of skill '${name}'` })
          }
          const existing = yield* findDropin(name)
          const at = yield* now
          const target = Option.match(existing, {
            onSome: (s) => s.dir,
            onNone: () => path.join(dirs.dropinDir, ...safeLocation(name, note.location).split("/"))
          })
          if (Option.isNone(existing) && (yield* io("inspect the drop-in directory", () => exists(target)))) {
            return yield* new SkillInvalid({ message: `the drop-in directory already holds '${path.relative(dirs.dropinDir, target)}', which is not this skill` })
          }
          const replaced = yield* io(`restore skill '${name}'`, async () => {
            let current: ParkedVersion | null = null
            if (Option.isSome(existing)) {
              const location = path.relative(dirs.dropinDir, existing.value.dir).split(path.sep).join("/")
              current = await park(dirs.parkedDir, name, existing.value.dir, location, `replaced by restoring ${version}`, at)
            }
            await moveDir(source, target)
            await forgetNote(dirs.parkedDir, name, version)
            return Option.fromNullable(current)
          })
          return { restored: note, parked: replaced }
        })
      )

    const readSkillMd = (skill: StoredSkill, maxBytes: number) =>
      io("read SKILL.md", () => readText(path.join(skill.dir, "SKILL.md"), maxBytes)).pipe(
        Effect.map((r) => ({ text: r.text, complete: r.complete }))
      )

    const store: SkillStoreShape = {
      dirs,
      list: Effect.map(Effect.all([shipped, dropin]), ([a, b]) => [...a, ...b]),
      find,
      isShipped,
      findDropin,
      blocked,
      readSkillMd,
      installed,
      install,
      remove,
      undo,
      parked,
      restore
    }
    return store
  })

/** A store over explicit folders (tests, tools). */
export const SkillStoreWith = (dirs: SkillDirs) => Layer.effect(SkillStore, makeSkillStore(dirs))

/**
 * The store over the configured drop-in directory, `<data_dir>/skills-parked`, and the shipped
 * folder. At start the drop-in folder is made readable by other users (Hermes may run as another
 * user: `dropinAccess.ts`); a failure there is a warning (`agent-bridge doctor` says what is wrong).
 */
export const SkillStoreLive = Layer.effect(
  SkillStore,
  Effect.flatMap(AppConfig, (config) =>
    Effect.zipRight(
      Effect.try(() => openDropinForHermes(config.dataDir, config.dropinDir)).pipe(
        Effect.catchAll((e) =>
          Effect.logWarning("could not make the drop-in skills folder readable by other users (a Hermes of another user cannot load its skills; see agent-bridge doctor)", e.error).pipe(
            Effect.annotateLogs({ dropin_dir: config.dropinDir })
          )
        )
      ),
      makeSkillStore({
        shippedDir: SHIPPED_SKILLS_DIR,
        dropinDir: config.dropinDir,
        parkedDir: path.join(config.dataDir, "skills-parked")
      })
    )
  )
)

