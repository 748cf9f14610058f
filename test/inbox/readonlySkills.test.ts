/**
 * Approvals over a skills folder the bridge may not write. Root ignores permission bits, so the
 * folder is made immutable (`chattr +i`, which stops root too) and parked versions live on another
 * file system (/dev/shm), so parking is a copy and a removal as on a read-only bind mount. The
 * approval answers `bridge.store_unavailable` naming the folder, the row stays pending, and nothing
 * is left half done: no stray copy in skills-parked, no staging folder, the skill as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { makeStack, readFolder, skillMd, writeSkill } from "../teach/skillFixtures.ts"
import { pushDelete, pushSkill } from "./support.ts"

const chattr = (flag: "+i" | "-i", target: string) => execFileSync("chattr", [flag, target], { stdio: "ignore" })

/** Whether this machine can make a folder immutable (ext4 and friends, as root). */
const immutableWorks = (() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "immutable-probe-"))
  try {
    chattr("+i", probe)
    chattr("-i", probe)
    return fs.existsSync("/dev/shm")
  } catch {
    return false
  } finally {
    fs.rmSync(probe, { recursive: true, force: true })
  }
})()

const makeDirs = () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ro-skills-"))
  const parked = fs.mkdtempSync(path.join("/dev/shm", "ro-skills-parked-"))
  return { shippedDir: path.join(tmp, "shipped"), dropinDir: path.join(tmp, "dropin"), parkedDir: path.join(parked, "skills-parked") }
}

/** Runs `body` with `target` immutable, and always makes it mutable again. */
const frozen = <A, E, R>(target: string, body: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(() => chattr("+i", target)), () => body, () => Effect.sync(() => chattr("-i", target)))

const decide = (id: string) => Effect.flatMap(Inbox, (inbox) => inbox.decide(id, { approve: true, by: "admin" }))
const pendingIds = Effect.map(Effect.flatMap(Inbox, (inbox) => inbox.list({ state: "pending" })), (rows) => rows.map((r) => r.id))
const failure = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.match(exit, { onSuccess: () => ({ tag: "success", message: "" }), onFailure: (c) => c._tag === "Fail" ? { tag: String((c.error as any)._tag), message: String((c.error as any).message) } : { tag: c._tag, message: "" } })

describe.skipIf(!immutableWorks)("approvals on a skills folder the bridge may not write", () => {
  it.scoped("a delete is store_unavailable naming the folder; no stray copy is parked, the skill stays", () => {
    const dirs = makeDirs()
    const stack = makeStack(undefined, dirs)
    writeSkill(dirs.dropinDir, "notes", skillMd("notes"))
    const skillDir = path.join(dirs.dropinDir, "notes")
    const before = readFolder(skillDir)
    return Effect.gen(function* () {
      const queued = yield* pushDelete("alice", "notes")
      const answer = failure(yield* frozen(skillDir, Effect.exit(decide(queued.approval_id))))
      expect(answer.tag).toBe("StoreUnavailable")
      expect(answer.message).toContain(skillDir)
      expect(answer.message).toContain("make it writable")
      expect(readFolder(skillDir)).toEqual(before)
      const parkedNotes = path.join(dirs.parkedDir, "notes")
      expect(fs.existsSync(parkedNotes) ? fs.readdirSync(parkedNotes) : []).toEqual([])
      expect(yield* pendingIds).toEqual([queued.approval_id])
      // Writable again: the same approval goes through.
      yield* decide(queued.approval_id)
      expect(fs.existsSync(skillDir)).toBe(false)
    }).pipe(Effect.provide(stack.layer))
  })

  it.scoped("a put is store_unavailable naming the folder and leaves no staging folder", () => {
    const dirs = makeDirs()
    const stack = makeStack(undefined, dirs)
    fs.mkdirSync(dirs.dropinDir, { recursive: true })
    return Effect.gen(function* () {
      const queued = yield* pushSkill("alice", "notes", skillMd("notes"))
      const answer = failure(yield* frozen(dirs.dropinDir, Effect.exit(decide(queued.approval_id))))
      expect(answer.tag).toBe("StoreUnavailable")
      expect(answer.message).toContain(dirs.dropinDir)
      expect(fs.readdirSync(dirs.dropinDir)).toEqual([])
      expect(yield* pendingIds).toEqual([queued.approval_id])
    }).pipe(Effect.provide(stack.layer))
  })
})
