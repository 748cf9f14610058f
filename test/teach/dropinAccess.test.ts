/**
 * The drop-in skills folder is readable by a Hermes that runs as another user than the bridge:
 * what the bridge writes there is 0755/0644 whatever its umask, a data dir that holds the folder
 * is passable (0711) but keeps the database and the admin key to the bridge, and `doctor` names
 * what keeps other users out, with the fix.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { SkillStore, SkillStoreLive, SkillStoreWith } from "../../src/services/skill-store/SkillStore.ts"
import { DbLive } from "../../src/storage/Db.ts"
import { readabilityProblems } from "../../src/services/skill-store/dropinAccess.ts"
import { dropinRow } from "../../src/cli/doctor.ts"
import { testConfig } from "../support/daemon.ts"
import { makeDirs, skillMd, writeSkill } from "./skillFixtures.ts"

const modeOf = (p: string) => fs.statSync(p).mode & 0o777

describe("the drop-in skills folder, for a Hermes of another user", () => {
  let umask = 0
  // The strictest usual umask: without explicit modes the bridge's files would be 0600/0700.
  beforeEach(() => { umask = process.umask(0o077) })
  afterEach(() => { process.umask(umask) })

  it.effect("an installed skill's folder and files are readable by others whatever the umask", () => {
    const dirs = makeDirs()
    return Effect.gen(function* () {
      const store = yield* SkillStore
      yield* store.install("deploy", { skillMd: skillMd("deploy"), files: { "notes.md": "n" } }, "test")
      const dir = path.join(dirs.dropinDir, "deploy")
      expect(modeOf(dirs.dropinDir)).toBe(0o755)
      expect(modeOf(dir)).toBe(0o755)
      expect(modeOf(path.join(dir, "SKILL.md"))).toBe(0o644)
      expect(modeOf(path.join(dir, "notes.md"))).toBe(0o644)
      expect(readabilityProblems(dirs.dropinDir).filter((p) => !p.includes("not traversable"))).toEqual([])
    }).pipe(Effect.provide(SkillStoreWith(dirs)))
  })

  it.effect("at start, a data dir holding the drop-in folder becomes 0711 and the folder 0755; the database stays 0600", () => {
    const config = testConfig()
    return Effect.gen(function* () {
      yield* SkillStore
      expect(modeOf(config.dataDir)).toBe(0o711)
      expect(modeOf(config.dropinDir)).toBe(0o755)
      expect(modeOf(path.join(config.dataDir, "bridge.db"))).toBe(0o600)
    }).pipe(Effect.provide(SkillStoreLive.pipe(Layer.provideMerge(DbLive(config.dataDir)), Layer.provide(AppConfigLive(config)))))
  })

  it.effect("a data dir the skill store makes first is private but passable (0711), never listable", () => {
    const config = testConfig()
    // The usual umask, which would leave a folder made with 0755 listable by others.
    process.umask(0o022)
    return Effect.gen(function* () {
      yield* SkillStore
      expect(modeOf(config.dataDir)).toBe(0o711)
      expect(modeOf(config.dropinDir)).toBe(0o755)
    }).pipe(Effect.provide(SkillStoreLive.pipe(Layer.provide(AppConfigLive(config)))))
  })

  it.effect("a drop-in folder configured outside the data dir leaves the data dir 0700", () => {
    const dirs = makeDirs()
    const config = testConfig({ skills: { dropin_dir: path.join(path.dirname(dirs.dropinDir), "elsewhere") } })
    fs.mkdirSync(config.dataDir, { recursive: true })
    return Effect.gen(function* () {
      yield* SkillStore
      expect(modeOf(config.dataDir)).toBe(0o700)
      expect(modeOf(config.dropinDir)).toBe(0o755)
    }).pipe(Effect.provide(SkillStoreLive.pipe(Layer.provideMerge(DbLive(config.dataDir)), Layer.provide(AppConfigLive(config)))))
  })

  it("doctor warns, with the fix, when other users cannot read the drop-in folder; ok when they can", () => {
    const config = testConfig()
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
    fs.chmodSync(config.dataDir, 0o700)
    writeSkill(config.dropinDir, "deploy", skillMd("deploy"))
    const closed = dropinRow(config)
    expect(closed.status).toBe("warn")
    expect(closed.detail).toContain(`${config.dataDir} (not traversable by others)`)
    expect(closed.detail).toContain(`chmod 711 ${config.dataDir}`)
    expect(closed.detail).toContain(`chmod -R o+rX ${config.dropinDir}`)
    fs.chmodSync(config.dataDir, 0o711)
    for (const p of [config.dropinDir, path.join(config.dropinDir, "deploy")]) fs.chmodSync(p, 0o755)
    fs.chmodSync(path.join(config.dropinDir, "deploy", "SKILL.md"), 0o644)
    const open = dropinRow(config)
    // The temporary folder's own parents are the machine's; only what the bridge owns is asserted.
    if (readabilityProblems(config.dropinDir).length === 0) expect(open.status).toBe("ok")
    expect(open.detail).not.toContain(config.dataDir + " (")
  })
})
