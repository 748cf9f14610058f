/**
 * The inbox side of skill changes: the seed's pending rules, every state transition, and what
 * approval writes (exactly the card, atomically, parking the previous version).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { skillDigest } from "../../src/domain/skills/card.ts"
import { Inbox, type InboxRow } from "../../src/services/inbox/Inbox.ts"
import { rowDiff } from "../../src/services/inbox/rowDiff.ts"
import { SkillStore } from "../../src/services/skill-store/SkillStore.ts"
import { Skills } from "../../src/services/skills/Skills.ts"
import { as } from "./support.ts"
import { makeStack, readFolder, skillMd, writeSkill } from "./skillFixtures.ts"

const put = (client: string, name: string, md: string, files?: Record<string, string>) =>
  Effect.flatMap(Skills, (s) => s.put(name, md, files)).pipe(as(client))
const remove = (client: string, name: string) => Effect.flatMap(Skills, (s) => s.remove(name)).pipe(as(client))
const row = (id: string) => Effect.flatMap(Inbox, (i) => i.get(id)).pipe(Effect.map(Option.getOrThrow))
const approve = (id: string) => Effect.flatMap(Inbox, (i) => i.decide(id, { approve: true, by: "admin" }))
const deny = (id: string) => Effect.flatMap(Inbox, (i) => i.decide(id, { approve: false, by: "admin" }))
const pending = Effect.flatMap(Inbox, (i) => i.list({ state: "pending" }))

describe("pending rules", () => {
  it.effect("the same client pushing the same content again gets the same row", () =>
    Effect.gen(function* () {
      const a = yield* put("alice", "s", skillMd("s"), { "f.md": "x" })
      const b = yield* put("alice", "s", skillMd("s"), { "f.md": "x" })
      expect(b.approval_id).toBe(a.approval_id)
      expect(yield* pending).toHaveLength(1)
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("another client pushing identical content gets its own row", () =>
    Effect.gen(function* () {
      const a = yield* put("alice", "s", skillMd("s"))
      const b = yield* put("bob", "s", skillMd("s"))
      expect(b.approval_id).not.toBe(a.approval_id)
      expect((yield* pending).map((r) => r.client).sort()).toEqual(["alice", "bob"])
      // And bob's repeat is bob's row.
      expect((yield* put("bob", "s", skillMd("s"))).approval_id).toBe(b.approval_id)
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("an edited push from the same client withdraws its older row and queues the new one", () =>
    Effect.gen(function* () {
      const a = yield* put("alice", "s", skillMd("s", "first"))
      const b = yield* put("alice", "s", skillMd("s", "second"))
      expect(b.approval_id).not.toBe(a.approval_id)
      const older = yield* row(a.approval_id)
      expect(older.state).toBe("withdrawn")
      expect(older.decided_by).toBe("alice")
      expect((yield* pending).map((r) => r.id)).toEqual([b.approval_id])
      // Withdrawn rows cannot be decided.
      expect((yield* Effect.flip(approve(a.approval_id)))._tag).toBe("NoPendingRequest")
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("an edited push while another client's put is pending is bridge.skill_pending_elsewhere", () =>
    Effect.gen(function* () {
      yield* put("alice", "s", skillMd("s", "alice's"))
      const e = yield* Effect.flip(put("bob", "s", skillMd("s", "bob's")))
      expect(e._tag).toBe("SkillPendingElsewhere")
      // Also when alice and bob both hold identical rows and alice edits hers.
      yield* put("bob", "t", skillMd("t"))
      yield* put("alice", "t", skillMd("t"))
      expect((yield* Effect.flip(put("alice", "t", skillMd("t", "edited"))))._tag).toBe("SkillPendingElsewhere")
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("puts and deletes of one skill never pend together from different clients", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s"))
    return Effect.gen(function* () {
      yield* remove("alice", "s")
      expect((yield* Effect.flip(put("bob", "s", skillMd("s", "new"))))._tag).toBe("SkillPendingElsewhere")
      // Each client's delete is its own row; a repeat is that row.
      const b1 = yield* remove("bob", "s")
      const b2 = yield* remove("bob", "s")
      expect(b2.approval_id).toBe(b1.approval_id)
      expect(yield* pending).toHaveLength(2)
      // A put from alice replaces alice's own delete... but bob's delete is pending: refused.
      expect((yield* Effect.flip(put("alice", "s", skillMd("s", "new"))))._tag).toBe("SkillPendingElsewhere")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a put from the client that holds the pending delete withdraws the delete", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s"))
    return Effect.gen(function* () {
      const d = yield* remove("alice", "s")
      const p = yield* put("alice", "s", skillMd("s", "new"))
      expect((yield* row(d.approval_id)).state).toBe("withdrawn")
      expect((yield* row(p.approval_id)).kind).toBe("skill_put")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("eight pending changes per client; the ninth is bridge.too_many_pending", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "gone", skillMd("gone"))
    return Effect.gen(function* () {
      for (let i = 0; i < 7; i++) yield* put("alice", `s${i}`, skillMd(`s${i}`))
      const del = yield* remove("alice", "gone")
      expect(yield* pending).toHaveLength(8)
      const e = yield* Effect.flip(put("alice", "s8", skillMd("s8")))
      expect(e._tag).toBe("TooManyPending")
      // A repeat is still answered, and an edit replaces a held row, so neither counts as a ninth.
      expect((yield* put("alice", "s0", skillMd("s0"))).approval_id).toBeDefined()
      yield* put("alice", "s0", skillMd("s0", "edited"))
      expect((yield* remove("alice", "gone")).approval_id).toBe(del.approval_id)
      // Other clients are not affected, and a decision frees a slot.
      yield* put("bob", "s8", skillMd("s8"))
      const some = (yield* pending).find((r) => r.client === "alice")!
      yield* deny(some.id)
      yield* put("alice", "s9", skillMd("s9"))
    }).pipe(Effect.provide(stack.layer))
  })
})

describe("decisions", () => {
  it.effect("approval writes exactly the card: SKILL.md and every file, byte for byte", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const md = skillMd("s", "d", "Body with émoji 😀 and tabs\tend\r\n")
      const files = { "a.md": "alpha\n", "run.sh": "#!/bin/sh\necho hi\n" }
      const r = yield* put("alice", "s", md, files)
      const before = yield* row(r.approval_id)
      const decided = yield* approve(r.approval_id)
      expect(decided.state).toBe("approved")
      expect(decided.decided_by).toBe("admin")
      expect(decided.decided_at).not.toBeNull()
      const dir = path.join(stack.dirs.dropinDir, "s")
      expect(readFolder(dir)).toEqual({ "SKILL.md": md, ...files })
      if (before.kind !== "skill_put") throw new Error("expected a put")
      expect(skillDigest(fs.readFileSync(path.join(dir, "SKILL.md"), "utf8"), { "a.md": readFolder(dir)["a.md"]!, "run.sh": readFolder(dir)["run.sh"]! })).toBe(before.card.digest)
      // Nothing staged is left behind.
      expect(fs.readdirSync(stack.dirs.dropinDir)).toEqual(["s"])
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("the largest push allowed is shown whole on the card and written exactly", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const md = skillMd("big").padEnd(16 * 1024, "m")
      const files = { "a.md": "a".repeat(16 * 1024), "b.md": "é".repeat(8 * 1024) }
      const r = yield* put("alice", "big", md, files)
      const card = yield* row(r.approval_id)
      if (card.kind !== "skill_put") throw new Error("expected a put")
      expect(card.card.bytes).toBe(48 * 1024)
      expect(card.card.preview).toBe(md)
      expect(card.card.files["b.md"]?.content).toBe(files["b.md"])
      yield* approve(r.approval_id)
      expect(readFolder(path.join(stack.dirs.dropinDir, "big"))).toEqual({ "SKILL.md": md, ...files })
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("concurrent pushes of different content by two clients: one row, one pending_elsewhere", () =>
    Effect.gen(function* () {
      const results = yield* Effect.all(
        [put("alice", "race", skillMd("race", "a")), put("bob", "race", skillMd("race", "b"))].map(Effect.either),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r._tag === "Right")).toHaveLength(1)
      const left = results.find((r) => r._tag === "Left")
      expect(left?._tag === "Left" && left.left._tag).toBe("SkillPendingElsewhere")
      expect(yield* pending).toHaveLength(1)
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("an approval racing an edited push never installs a withdrawn card", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      for (let round = 0; round < 5; round++) {
        const name = `r${round}`
        const first = yield* put("alice", name, skillMd(name, "first"))
        const [decided] = yield* Effect.all(
          [Effect.either(approve(first.approval_id)), put("alice", name, skillMd(name, "second"))],
          { concurrency: "unbounded" }
        )
        const state = (yield* row(first.approval_id)).state
        const file = path.join(stack.dirs.dropinDir, name, "SKILL.md")
        if (state === "approved") {
          expect(decided._tag).toBe("Right")
          expect(fs.readFileSync(file, "utf8")).toBe(skillMd(name, "first"))
        } else {
          expect(state).toBe("withdrawn")
          expect(decided._tag === "Left" && decided.left._tag).toBe("NoPendingRequest")
          expect(fs.existsSync(file)).toBe(false)
        }
      }
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a replacement parks the previous version; files left out of the push are gone from the skill", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "old"), { "keep.md": "k", "old.md": "o" })
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s", "new"), { "keep.md": "k2" })
      yield* approve(r.approval_id)
      expect(readFolder(path.join(stack.dirs.dropinDir, "s"))).toEqual({ "SKILL.md": skillMd("s", "new"), "keep.md": "k2" })
      const parked = yield* Effect.flatMap(SkillStore, (s) => s.parked("s"))
      expect(parked).toHaveLength(1)
      expect(parked[0]!.reason).toContain(r.approval_id)
      expect(readFolder(path.join(stack.dirs.parkedDir, "s", parked[0]!.version))).toEqual({ "SKILL.md": skillMd("s", "old"), "keep.md": "k", "old.md": "o" })
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a skill in a category folder is replaced where it is", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "devops/deploy", skillMd("deploy", "old"))
    return Effect.gen(function* () {
      const r = yield* put("alice", "deploy", skillMd("deploy", "new"))
      yield* approve(r.approval_id)
      expect(fs.readFileSync(path.join(stack.dirs.dropinDir, "devops", "deploy", "SKILL.md"), "utf8")).toBe(skillMd("deploy", "new"))
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "deploy"))).toBe(false)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("denial writes nothing and closes the row as denied", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s"))
      const d = yield* deny(r.approval_id)
      expect(d.state).toBe("denied")
      expect(d.decided_by).toBe("admin")
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "s"))).toBe(false)
      expect((yield* Effect.flip(approve(r.approval_id)))._tag).toBe("NoPendingRequest")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("an approved delete parks and removes the folder; a denied one leaves it", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "a", skillMd("a"))
    writeSkill(stack.dirs.dropinDir, "b", skillMd("b"))
    return Effect.gen(function* () {
      const da = yield* remove("alice", "a")
      const db = yield* remove("alice", "b")
      expect((yield* approve(da.approval_id)).state).toBe("approved")
      expect((yield* deny(db.approval_id)).state).toBe("denied")
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "a"))).toBe(false)
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "b", "SKILL.md"))).toBe(true)
      expect((yield* Effect.flatMap(SkillStore, (s) => s.parked("a"))).map((p) => p.name)).toEqual(["a"])
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a parked version can be restored (and what it replaces is parked in turn)", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "v1"), { "f.md": "one" })
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s", "v2"))
      yield* approve(r.approval_id)
      const store = yield* SkillStore
      const [v1] = yield* store.parked("s")
      const result = yield* store.restore("s", v1!.version)
      expect(result.restored.version).toBe(v1!.version)
      expect(Option.isSome(result.parked)).toBe(true)
      expect(readFolder(path.join(stack.dirs.dropinDir, "s"))).toEqual({ "SKILL.md": skillMd("s", "v1"), "f.md": "one" })
      const now = yield* store.parked("s")
      expect(now.map((p) => p.version)).not.toContain(v1!.version)
      expect(now).toHaveLength(1)
      // A deleted skill comes back where it was.
      const d = yield* remove("alice", "s")
      yield* approve(d.approval_id)
      const [latest] = yield* store.parked("s")
      yield* store.restore("s", latest!.version)
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "s", "SKILL.md"))).toBe(true)
      // Unknown versions, and shipped names, are refused.
      expect((yield* Effect.flip(store.restore("s", "20200101T000000000Z-00000000")))._tag).toBe("SkillNotFound")
      expect((yield* Effect.flip(store.restore("s", "../../etc")))._tag).toBe("SkillNotFound")
      expect((yield* Effect.flip(store.restore("builtin", "x")))._tag).toBe("SkillReadonly")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a write that fails leaves the installed version and the row as they were", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "v1"))
    // A file where the staging folder must go makes the write fail before anything moves.
    fs.writeFileSync(path.join(stack.dirs.dropinDir, ".staging"), "in the way")
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s", "v2"))
      const e = yield* Effect.flip(approve(r.approval_id))
      expect(e._tag).toBe("Internal")
      expect(fs.readFileSync(path.join(stack.dirs.dropinDir, "s", "SKILL.md"), "utf8")).toBe(skillMd("s", "v1"))
      expect((yield* row(r.approval_id)).state).toBe("pending")
      fs.rmSync(path.join(stack.dirs.dropinDir, ".staging"))
      expect((yield* approve(r.approval_id)).state).toBe("approved")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a card altered at rest is never written", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s"))
      const { SqlClient } = yield* Effect.promise(() => import("@effect/sql"))
      const sql = yield* SqlClient.SqlClient
      const [dbRow] = yield* sql<{ payload: string }>`SELECT payload FROM inbox WHERE id = ${r.approval_id}`
      const payload = JSON.parse(dbRow!.payload)
      payload.card.preview = payload.card.preview + "\nrm -rf /\n"
      yield* sql`UPDATE inbox SET payload = ${JSON.stringify(payload)} WHERE id = ${r.approval_id}`
      const exit = yield* Effect.exit(approve(r.approval_id))
      expect(exit._tag).toBe("Failure")
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "s"))).toBe(false)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("an unknown id is bridge.no_pending_request", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(approve("apr_nope")))._tag).toBe("NoPendingRequest")
    }).pipe(Effect.provide(makeStack().layer)))
})

describe("the operator's view", () => {
  it.effect("list filters by state, newest first; get returns the card with preview_truncated false", () =>
    Effect.gen(function* () {
      const a = yield* put("alice", "a", skillMd("a"))
      const b = yield* put("alice", "b", skillMd("b"))
      yield* deny(a.approval_id)
      const inbox = yield* Inbox
      expect((yield* inbox.list({ state: "pending" })).map((r) => r.id)).toEqual([b.approval_id])
      expect((yield* inbox.list({ state: "denied" })).map((r) => r.id)).toEqual([a.approval_id])
      expect((yield* inbox.list()).map((r) => r.id).sort()).toEqual([a.approval_id, b.approval_id].sort())
      const rb = (yield* row(b.approval_id)) as Extract<InboxRow, { kind: "skill_put" }>
      expect(rb.card.preview).toBe(skillMd("b"))
      expect(rb.card.preview_truncated).toBe(false)
      expect(rb.client).toBe("alice")
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("rowDiff shows each file against the installed version", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "old"), { "gone.md": "g" })
    return Effect.gen(function* () {
      const r = yield* put("alice", "s", skillMd("s", "new"), { "added.md": "a" })
      const diff = yield* rowDiff(yield* row(r.approval_id))
      expect(diff?.map((d) => [d.file, d.change])).toEqual([["SKILL.md", "changed"], ["added.md", "added"], ["gone.md", "removed"]])
      expect(diff?.[0]?.diff).toContain("-description: old\n+description: new")
    }).pipe(Effect.provide(stack.layer))
  })
})
