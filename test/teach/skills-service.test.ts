/** `agent_skills_list`, `agent_skill_get`, `agent_skill_put`, `agent_skill_delete` through `Skills`. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { REVIEWABLE_TEXT_MESSAGE } from "../../src/domain/skills/files.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { Skills, SkillsNotRunning } from "../../src/services/skills/Skills.ts"
import { SkillProposalsNotRunning } from "../../src/services/inbox/SkillProposals.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { SkillsLive } from "../../src/services/skills/SkillsLive.ts"
import { SkillStoreWith } from "../../src/services/skill-store/SkillStore.ts"
import { as } from "./support.ts"
import { makeDirs, makeStack, skillMd, writeSkill } from "./skillFixtures.ts"

const skills = Skills
const put = (client: string, name: string, md: string, files?: Record<string, string>) =>
  Effect.flatMap(skills, (s) => s.put(name, md, files)).pipe(as(client))
const remove = (client: string, name: string) => Effect.flatMap(skills, (s) => s.remove(name)).pipe(as(client))
const get = (name: string) => Effect.flatMap(skills, (s) => s.get(name)).pipe(as("alice"))
const list = Effect.flatMap(skills, (s) => s.list).pipe(as("alice"))

describe("agent_skills_list", () => {
  it.effect("lists shipped and drop-in skills with category, description, mtime, files and broken", () => {
    const stack = makeStack()
    const { dropinDir } = stack.dirs
    writeSkill(dropinDir, "plain", skillMd("plain", "Plain one."), { "notes.md": "n", "scripts/run.sh": "echo", ".git/HEAD": "x", ".DS_Store": "x" })
    writeSkill(dropinDir, "devops/deploy", skillMd("deploy", "In a category folder."))
    writeSkill(dropinDir, "tagged", "---\nname: tagged\ndescription: d\nmetadata:\n  hermes:\n    category: research\n---\n")
    writeSkill(dropinDir, "nofront", "# no frontmatter here\n")
    writeSkill(dropinDir, "badyaml", "---\nname: [oops\n---\n")
    fs.mkdirSync(path.join(dropinDir, "notaskill"))
    writeSkill(dropinDir, ".staging/x/hidden", skillMd("hidden"))
    return Effect.gen(function* () {
      const { skills } = yield* list
      expect(skills.map((s) => [s.name, s.source, s.category, s.broken])).toEqual([
        ["builtin", "shipped", null, false],
        ["badyaml", "dropin", null, true],
        ["deploy", "dropin", "devops", false],
        ["nofront", "dropin", null, true],
        ["plain", "dropin", null, false],
        ["tagged", "dropin", "research", false]
      ])
      const plain = skills.find((s) => s.name === "plain")!
      expect(plain.description).toBe("Plain one.")
      expect(plain.files).toEqual(["notes.md", "scripts/run.sh"])
      expect(plain.mtime).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(skills.find((s) => s.name === "nofront")!.description).toBeNull()
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a SKILL.md that is not UTF-8 is broken, not a failed list", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "latin1", Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]) as unknown as string)
    return Effect.gen(function* () {
      const s = (yield* list).skills.find((x) => x.name === "latin1")
      expect(s?.broken).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("no drop-in directory yet: only the shipped skills", () =>
    Effect.gen(function* () {
      expect((yield* list).skills.map((s) => s.name)).toEqual(["builtin"])
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("descriptions pass through the Redactor", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "leaky", skillMd("leaky", "'uses Authorization: Bearer abcdefghijklmnop1234'"))
    return Effect.gen(function* () {
      const s = (yield* list).skills.find((x) => x.name === "leaky")!
      expect(s.description).toContain("Authorization: Bearer")
      expect(s.description).not.toContain("abcdefghijklmnop1234")
    }).pipe(Effect.provide(stack.layer))
  })
})

describe("agent_skill_get", () => {
  it.effect("returns SKILL.md redacted and the supporting file names only", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "api", skillMd("api", "d", "Set HF_TOKEN=... then call with Authorization: Bearer abcdefghijklmnop1234\n"), {
      "ref.md": "file content is never returned"
    })
    return Effect.gen(function* () {
      const doc = yield* get("api")
      expect(doc.name).toBe("api")
      expect(doc.source).toBe("dropin")
      expect(doc.files).toEqual(["ref.md"])
      expect(doc.skill_md).toContain("HF_TOKEN=***REDACTED***")
      expect(doc.skill_md).not.toContain("abcdefghijklmnop1234")
      expect(JSON.stringify(doc)).not.toContain("file content is never returned")
      expect(doc.truncated).toBeUndefined()
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("cuts at 16 KiB of UTF-8 with truncated: true; exactly 16 KiB is whole", () => {
    const stack = makeStack()
    const head = skillMd("big", "d", "")
    writeSkill(stack.dirs.dropinDir, "exact", skillMd("exact", "d", "").padEnd(16 * 1024, "x"))
    writeSkill(stack.dirs.dropinDir, "big", head + "é".repeat(20000))
    return Effect.gen(function* () {
      const exact = yield* get("exact")
      expect(Buffer.byteLength(exact.skill_md)).toBe(16 * 1024)
      expect(exact.truncated).toBeUndefined()
      const big = yield* get("big")
      expect(big.truncated).toBe(true)
      expect(Buffer.byteLength(big.skill_md)).toBeLessThanOrEqual(16 * 1024)
      expect(Buffer.byteLength(big.skill_md)).toBeGreaterThan(16 * 1024 - 4)
      expect(big.skill_md.endsWith("é")).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("reads shipped skills; an unknown or path-like name is bridge.skill_not_found", () =>
    Effect.gen(function* () {
      expect((yield* get("builtin")).source).toBe("shipped")
      for (const name of ["nope", "../shipped/builtin", "builtin/../builtin", ""]) {
        expect((yield* Effect.flip(get(name)))._tag, name).toBe("SkillNotFound")
      }
    }).pipe(Effect.provide(makeStack().layer)))
})

describe("agent_skill_put", () => {
  it.effect("queues a pending approval and writes nothing", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const r = yield* put("alice", "new-skill", skillMd("new-skill"), { "notes.md": "n" })
      expect(r).toEqual({ status: "pending_approval", approval_id: r.approval_id, name: "new-skill" })
      expect(r.approval_id).toMatch(/^apr_[0-9a-f]{20}$/)
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "new-skill"))).toBe(false)
      const row = yield* Effect.flatMap(Inbox, (i) => i.get(r.approval_id))
      expect(row._tag === "Some" && row.value.kind === "skill_put" && row.value.card.files["notes.md"]?.content).toBe("n")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a shipped name is bridge.skill_readonly before anything is queued", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(put("alice", "builtin", skillMd("builtin"))))._tag).toBe("SkillReadonly")
      expect((yield* Effect.flatMap(Inbox, (i) => i.list({ state: "pending" })))).toEqual([])
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("an invalid push is bridge.skill_invalid with the first problem", () =>
    Effect.gen(function* () {
      const e1 = yield* Effect.flip(put("alice", "Bad", skillMd("Bad")))
      expect(e1._tag).toBe("SkillInvalid")
      const e2 = yield* Effect.flip(put("alice", "ok", skillMd("ok").padEnd(16 * 1024 + 1, "x")))
      expect(e2.message.startsWith(REVIEWABLE_TEXT_MESSAGE)).toBe(true)
      const e3 = yield* Effect.flip(put("alice", "ok", skillMd("ok"), { "notes.md": "jo\u200Diner" }))
      expect(e3.message).toContain("'notes.md' holds control, format or invisible characters")
      expect((yield* Effect.flatMap(Inbox, (i) => i.list({})))).toEqual([])
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("placeholders pass; secret-shaped values are refused naming the file", () =>
    Effect.gen(function* () {
      const ok = "curl -H 'Authorization: Bearer <token>' https://x\nHF_TOKEN=...\nAPI_KEY=$API_KEY\nKEY=\"<your api key>\"\n"
      yield* put("alice", "placeholders", skillMd("placeholders", "d", ok))
      for (const [file, text] of [
        ["SKILL.md", "Authorization: Bearer abc123def456ghi789"],
        ["notes.md", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
        ["notes.md", "HF_TOKEN=<hf_abcdefgh>"]
      ] as const) {
        const md = file === "SKILL.md" ? skillMd("leak", "d", text) : skillMd("leak")
        const e = yield* Effect.flip(put("alice", "leak", md, file === "SKILL.md" ? {} : { [file]: text }))
        expect(e._tag).toBe("SkillInvalid")
        expect(e.message).toContain(`'${file}' holds secret-shaped text the inbox card would mask;`)
        expect(e.message).toContain("use a placeholder such as <YOUR_API_KEY> or $ENV_VAR")
      }
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("a non-skill folder of that name in the drop-in directory is refused", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "devops/deploy", skillMd("deploy"))
    return Effect.gen(function* () {
      const e = yield* Effect.flip(put("alice", "devops", skillMd("devops")))
      expect(e._tag).toBe("SkillInvalid")
      expect(e.message).toContain("not a skill")
    }).pipe(Effect.provide(stack.layer))
  })
})

describe("agent_skill_delete", () => {
  it.effect("queues a pending delete of a drop-in skill and removes nothing", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "old", skillMd("old"))
    return Effect.gen(function* () {
      const r = yield* remove("alice", "old")
      expect(r.status).toBe("pending_approval")
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "old", "SKILL.md"))).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("shipped → skill_readonly; missing → skill_not_found; bad name → skill_invalid", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(remove("alice", "builtin")))._tag).toBe("SkillReadonly")
      expect((yield* Effect.flip(remove("alice", "missing")))._tag).toBe("SkillNotFound")
      expect((yield* Effect.flip(remove("alice", "../x")))._tag).toBe("SkillInvalid")
    }).pipe(Effect.provide(makeStack().layer)))
})

describe("hand-placed skills", () => {
  it.effect("a bigger skill with binary files, put in the drop-in directory by hand, is listed and read like any other", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "manual", skillMd("manual", "d", "x".repeat(40 * 1024)), {
      "logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]) as unknown as string,
      "references/api.md": "api"
    })
    return Effect.gen(function* () {
      const listed = (yield* list).skills.find((s) => s.name === "manual")!
      expect(listed).toMatchObject({ source: "dropin", broken: false, files: ["logo.png", "references/api.md"] })
      const doc = yield* get("manual")
      expect(doc.truncated).toBe(true)
      expect(doc.files).toEqual(["logo.png", "references/api.md"])
    }).pipe(Effect.provide(stack.layer))
  })
})

describe("tool surface", () => {
  it("there is no approve tool: only a person decides, in the inbox", () => {
    const names = agentTools.map((t) => t.name)
    expect(names.filter((n) => /approv|decide|inbox/.test(n))).toEqual([])
    expect(names).toEqual(expect.arrayContaining(["agent_skills_list", "agent_skill_get", "agent_skill_put", "agent_skill_delete"]))
  })
})

describe("no inbox running", () => {
  it.effect("with SkillProposalsNotRunning, reads work and changes are bridge.unavailable", () => {
    const dirs = makeDirs()
    writeSkill(dirs.dropinDir, "there", skillMd("there"))
    const layer = SkillsLive.pipe(
      Layer.provideMerge(SkillProposalsNotRunning),
      Layer.provideMerge(SkillStoreWith(dirs)),
      Layer.provideMerge(RedactorLive)
    )
    return Effect.gen(function* () {
      expect((yield* list).skills.map((s) => s.name)).toEqual(["builtin", "there"])
      expect((yield* get("there")).name).toBe("there")
      const e = yield* Effect.flip(put("alice", "x", skillMd("x")))
      expect(e._tag).toBe("Unavailable")
      expect(e.message).toBe("no approval inbox is running")
      expect((yield* Effect.flip(remove("alice", "there")))._tag).toBe("Unavailable")
      // The checks that need no inbox still answer first.
      expect((yield* Effect.flip(put("alice", "builtin", skillMd("builtin"))))._tag).toBe("SkillReadonly")
    }).pipe(Effect.provide(layer))
  })

  it.effect("SkillsNotRunning: put and delete are bridge.unavailable", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(put("alice", "x", skillMd("x"))))._tag).toBe("Unavailable")
      expect((yield* Effect.flip(remove("alice", "x")))._tag).toBe("Unavailable")
    }).pipe(Effect.provide(SkillsNotRunning)))
})

