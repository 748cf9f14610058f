/** Temporary skill folders and the skills + inbox stack over them, for the teach tests. */
import { Effect, Layer, Ref } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { HermesFailure } from "../../src/hermes/client/failure.ts"
import { InboxLive } from "../../src/services/inbox/InboxLive.ts"
import { SkillsLive } from "../../src/services/skills/SkillsLive.ts"
import { type SkillDirs, SkillStoreWith } from "../../src/services/skill-store/SkillStore.ts"
import { TestDb } from "../support/testDb.ts"
import { type ApprovalCall, HermesClientApprovals } from "../../src/hermes/client/HermesClientApprovals.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { testConfig } from "../support/daemon.ts"

export const skillMd = (name: string, description = "Does one useful thing.", body = "# Steps\n\n1. Do it.\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`

export const writeSkill = (root: string, rel: string, md: string, files: Record<string, string | Buffer> = {}) => {
  const dir = path.join(root, rel)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "SKILL.md"), md)
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), content)
  }
  return dir
}

/** Fresh folders: a shipped root with `builtin`, an empty drop-in root, and a parking area. */
export const makeDirs = (): SkillDirs => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "teach-skills-"))
  const dirs = { shippedDir: path.join(tmp, "shipped"), dropinDir: path.join(tmp, "dropin"), parkedDir: path.join(tmp, "data", "skills-parked") }
  writeSkill(dirs.shippedDir, "builtin", skillMd("builtin", "A shipped skill."))
  return dirs
}

/** Reads a skill folder back as {file: text}. */
export const readFolder = (dir: string): Record<string, string> =>
  Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]))

export interface Stack {
  readonly dirs: SkillDirs
  readonly calls: Ref.Ref<ReadonlyArray<ApprovalCall>>
  readonly layer: Layer.Layer<any, any, never>
}

/** Skills + Inbox + SkillProposals + SkillStore over an in-memory database and the Hermes double. */
export const makeStack = (approvalAnswer?: () => Effect.Effect<void, HermesFailure>, dirs: SkillDirs = makeDirs()): Stack => {
  const calls = Effect.runSync(Ref.make<ReadonlyArray<ApprovalCall>>([]))
  const layer = SkillsLive.pipe(
    Layer.provideMerge(InboxLive),
    Layer.provideMerge(SkillStoreWith(dirs)),
    Layer.provideMerge(TestDb),
    Layer.provideMerge(HermesClientApprovals(calls, approvalAnswer)),
    Layer.provideMerge(RedactorLive),
    // The inbox store names its database from the config; a test that gives its own keeps it.
    Layer.provide(AppConfigLive(testConfig()))
  )
  return { dirs, calls, layer }
}
