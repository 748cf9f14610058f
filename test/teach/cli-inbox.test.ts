/** `agent-bridge inbox list|show|approve|deny|parked|restore` over the inbox service. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseArgs, UsageError } from "../../src/cli/args.ts"
import { inboxCommand } from "../../src/cli/inbox.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { Skills } from "../../src/services/skills/Skills.ts"
import { as } from "./support.ts"
import { makeStack, skillMd, writeSkill } from "./skillFixtures.ts"

const cli = (line: string) => inboxCommand(parseArgs(["inbox", ...line.split(" ").filter((s) => s !== "")]))
const put = (name: string, md: string, files?: Record<string, string>) =>
  Effect.flatMap(Skills, (s) => s.put(name, md, files)).pipe(as("alice"))

describe("agent-bridge inbox", () => {
  it.effect("list shows pending rows by default; --json and --state select", () =>
    Effect.gen(function* () {
      const a = yield* put("a", skillMd("a"))
      const b = yield* put("b", skillMd("b"))
      yield* cli(`deny ${a.approval_id}`)
      const text = yield* cli("list")
      expect(text).toContain(b.approval_id)
      expect(text).not.toContain(a.approval_id)
      expect(text).toMatch(/^ID\s+STATE\s+CLIENT\s+CREATED\s+WHAT/)
      expect(text).toContain("put skill b (1 files")
      const all = JSON.parse(yield* cli("list --state all --json")) as { rows: Array<{ id: string; state: string }> }
      expect(all.rows.map((r) => r.state).sort()).toEqual(["denied", "pending"])
      expect(yield* cli("list --state withdrawn")).toBe("no withdrawn inbox rows")
      expect((yield* Effect.flip(cli("list --state bogus"))) instanceof UsageError).toBe(true)
    }).pipe(Effect.provide(makeStack().layer)))

  it.effect("show prints the whole card and the diff; --json carries both", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "old"))
    return Effect.gen(function* () {
      const r = yield* put("s", skillMd("s", "new"), { "notes.md": "line one\n" })
      const text = yield* cli(`show ${r.approval_id}`)
      expect(text).toContain("----- SKILL.md -----")
      expect(text).toContain(skillMd("s", "new").trimEnd())
      expect(text).toContain("notes.md: 9 bytes, sha256 ")
      expect(text).toContain("line one")
      expect(text).toContain("-description: old")
      expect(text).toContain("+description: new")
      const j = JSON.parse(yield* cli(`show ${r.approval_id} --json`)) as { row: { card: { digest: string } }; diff: Array<{ file: string }> }
      expect(j.row.card.digest).toMatch(/^[0-9a-f]{64}$/)
      expect(j.diff.map((d) => d.file)).toEqual(["SKILL.md", "notes.md"])
      expect((yield* Effect.flip(cli("show apr_missing"))) instanceof UsageError).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("approve writes the skill; deny refuses --choice", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const r = yield* put("s", skillMd("s"))
      expect((yield* Effect.flip(cli(`deny ${r.approval_id} --choice once`))) instanceof UsageError).toBe(true)
      expect(yield* cli(`approve ${r.approval_id}`)).toBe(`${r.approval_id}: approved.`)
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "s", "SKILL.md"))).toBe(true)
      const again = yield* Effect.flip(cli(`approve ${r.approval_id}`))
      expect("_tag" in again && again._tag).toBe("NoPendingRequest")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("approve --choice answers a run approval; terminal escapes in commands are shown escaped", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const row = yield* Effect.flatMap(Inbox, (i) =>
        i.openRunApproval({
          run_id: "run_1", client: "alice", agent: "hermes", hermes_run_id: "hr", request_id: "rq",
          command: "echo \u001b[2Jhidden", description: "d", choices: []
        }))
      const shown = yield* cli(`show ${row.id}`)
      expect(shown).not.toContain("\u001b")
      expect(shown).toContain("\\u{1B}[2Jhidden")
      expect((yield* Effect.flip(cli(`approve ${row.id} --choice never`))) instanceof UsageError).toBe(true)
      expect(yield* cli(`approve ${row.id} --choice always`)).toBe(`${row.id}: approved (always).`)
      expect((yield* Ref.get(stack.calls)).map((c) => c.choice)).toEqual(["always"])
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("parked lists versions and restore brings one back", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "s", skillMd("s", "v1"))
    return Effect.gen(function* () {
      const r = yield* put("s", skillMd("s", "v2"))
      yield* cli(`approve ${r.approval_id}`)
      const parked = JSON.parse(yield* cli("parked s --json")) as { parked: Array<{ version: string }> }
      expect(parked.parked).toHaveLength(1)
      expect(yield* cli("parked")).toContain(parked.parked[0]!.version)
      const out = yield* cli(`restore s ${parked.parked[0]!.version}`)
      expect(out).toContain("Restored s from")
      expect(fs.readFileSync(path.join(stack.dirs.dropinDir, "s", "SKILL.md"), "utf8")).toBe(skillMd("s", "v1"))
      expect((yield* Effect.flip(cli("restore s"))) instanceof UsageError).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("an unknown sub-command is a usage error", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(cli("frobnicate"))) instanceof UsageError).toBe(true)
    }).pipe(Effect.provide(makeStack().layer)))
})
