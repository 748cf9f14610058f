/**
 * The teach side composed as the daemon provides it (`TeachServices` over the data directory from
 * the configuration): memory, a skill's whole life (put → approve → list/get → delete → approve →
 * restore), and the on-disk places docs/REFERENCE.md names.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as YAML from "yaml"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { loadConfig, type ResolvedConfig } from "../../src/config/load.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { TeachServices } from "../../src/daemon/teachServices.ts"
import { Memory } from "../../src/services/memory/Memory.ts"
import { DirectMemory } from "../../src/services/memory/DirectMemory.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { SkillStore } from "../../src/services/skill-store/SkillStore.ts"
import { Skills } from "../../src/services/skills/Skills.ts"
import { TestDbFor } from "../support/testDb.ts"
import { as, simpleHermes } from "./support.ts"
import { skillMd } from "./skillFixtures.ts"

const config = (yaml: object): ResolvedConfig => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "teach-wiring-"))
  const file = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(file, YAML.stringify({ bridge: { data_dir: path.join(dir, "data") }, ...yaml }))
  const loaded = loadConfig({ configPath: file, env: {} })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return loaded.right
}

const stack = (cfg: ResolvedConfig) =>
  TeachServices.pipe(
    Layer.provideMerge(TestDbFor(cfg.dataDir)),
    Layer.provideMerge(simpleHermes),
    Layer.provideMerge(Layer.mergeAll(AppConfigLive(cfg), RedactorLive))
  )

describe("TeachServices", () => {
  const cfg = config({})
  it.effect("a skill's whole life in the configured drop-in directory, parked under <data_dir>/skills-parked", () =>
    Effect.gen(function* () {
      const skills = yield* Skills
      const inbox = yield* Inbox
      const put = yield* skills.put("notes", skillMd("notes"), { "ref.md": "r" }).pipe(as("alice"))
      yield* inbox.decide(put.approval_id, { approve: true, by: "admin" })
      expect(cfg.dropinDir).toBe(path.join(cfg.dataDir, "skills"))
      expect(fs.readFileSync(path.join(cfg.dropinDir, "notes", "ref.md"), "utf8")).toBe("r")
      const listed = (yield* skills.list.pipe(as("bob"))).skills.find((s) => s.name === "notes")
      expect(listed).toMatchObject({ source: "dropin", files: ["ref.md"], broken: false })
      // The shipped skills of the package are listed too.
      expect((yield* skills.list.pipe(as("bob"))).skills.filter((s) => s.source === "shipped").length).toBeGreaterThanOrEqual(2)
      expect((yield* skills.get("notes").pipe(as("bob"))).skill_md).toBe(skillMd("notes"))
      const del = yield* skills.remove("notes").pipe(as("bob"))
      yield* inbox.decide(del.approval_id, { approve: true, by: "admin" })
      expect((yield* Effect.flip(skills.get("notes").pipe(as("bob"))))._tag).toBe("SkillNotFound")
      const store = yield* SkillStore
      const [parked] = yield* store.parked("notes")
      expect(fs.existsSync(path.join(cfg.dataDir, "skills-parked", "notes", parked!.version, "SKILL.md"))).toBe(true)
      yield* store.restore("notes", parked!.version)
      expect((yield* skills.get("notes").pipe(as("bob"))).files).toEqual(["ref.md"])
      // A shipped skill stays read-only.
      const shipped = (yield* skills.list.pipe(as("bob"))).skills.find((s) => s.source === "shipped")!
      expect((yield* Effect.flip(skills.remove(shipped.name).pipe(as("bob"))))._tag).toBe("SkillReadonly")
    }).pipe(Effect.provide(stack(cfg))))

  it.effect("memory works through both surfaces over the same store", () =>
    Effect.gen(function* () {
      yield* Effect.flatMap(Memory, (m) => m.add("shared", "the build cache lives in /var/cache/build", [])).pipe(as("alice"))
      const direct = yield* Effect.flatMap(DirectMemory, (m) => m.search("build cache", 10, "shared")).pipe(as("bob", ["agents", "memory"]))
      expect(direct.results.map((r) => r.text)).toEqual(["the build cache lives in /var/cache/build"])
    }).pipe(Effect.provide(stack(config({})))))

  it.effect("memory.enabled: false turns both memory surfaces off and leaves skills on", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(Effect.flatMap(Memory, (m) => m.add("hermes", "x", [])).pipe(as("alice"))))._tag).toBe("MemoryDisabled")
      expect((yield* Effect.flip(Effect.flatMap(DirectMemory, (m) => m.list("all", 10, 0)).pipe(as("alice", ["agents", "memory"]))))._tag).toBe("MemoryDisabled")
      expect((yield* Effect.flatMap(Skills, (s) => s.list).pipe(as("alice"))).skills.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(stack(config({ memory: { enabled: false } })))))
})
