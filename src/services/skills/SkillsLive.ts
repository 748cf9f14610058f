/**
 * `Skills` for the teach tools: list and read shipped and drop-in skills (redacted, cut at 16 KiB),
 * and propose puts and deletes that wait in the inbox. Nothing is written here; approval writes.
 *
 * Order of a put: name → shipped (`bridge.skill_readonly`) → a non-skill folder in the way → every
 * push rule (`domain/skills/validate.ts`, first problem wins) → the inbox's pending rules.
 */
import { Effect, Layer, Option } from "effect"
import { SkillInvalid, SkillNotFound, SkillReadonly } from "../../domain/errors.ts"
import { makeSkillCard } from "../../domain/skills/card.ts"
import { cutUtf8 } from "../../domain/skills/limits.ts"
import { skillNameProblem } from "../../domain/skills/name.ts"
import { type SecretCheck, skillPushProblem } from "../../domain/skills/validate.ts"
import type { SkillSummary } from "../../domain/skills/wire.ts"
import { Caller } from "../../request/Caller.ts"
import { SkillProposals } from "../inbox/SkillProposals.ts"
import { Redactor, type RedactorShape } from "../../common/Redactor.ts"
import { Skills } from "./Skills.ts"
import { SkillStore, type StoredSkill } from "../skill-store/SkillStore.ts"
import { SKILL_LIMITS } from "../../domain/limits.ts"

/** `agent_skill_get` reads this much of SKILL.md, so redaction sees well past the 16 KiB cut. */
const GET_READ_BYTES = 1024 * 1024

/**
 * A drop-in skill's folder name and file names are free (Hermes and the operator write that folder;
 * the naming rule binds only pushes), so they leave through the Redactor like its description.
 */
const shownFiles = (redactor: RedactorShape, files: ReadonlyArray<string>): ReadonlyArray<string> => files.map((f) => redactor.text(f))

const summary = (redactor: RedactorShape, s: StoredSkill): SkillSummary => ({
  name: redactor.text(s.name),
  source: s.source,
  category: s.category === null ? null : redactor.text(s.category),
  description: s.description === null ? null : redactor.text(s.description),
  mtime: s.mtime,
  files: shownFiles(redactor, s.files),
  broken: s.broken
})

const invalid = (message: string) => new SkillInvalid({ message })

const readonly = (name: string) =>
  new SkillReadonly({ message: `'${name}' is one of hal0's shipped skills, which cannot be changed or deleted` })

export const makeSkills = (secretProblem: SecretCheck) =>
  Effect.gen(function* () {
    const store = yield* SkillStore
    const proposals = yield* SkillProposals
    const redactor = yield* Redactor

    const checkName = (name: string) => {
      const problem = skillNameProblem(name)
      return problem === null ? Effect.void : Effect.fail(invalid(problem))
    }
    const notShipped = (name: string) => Effect.flatMap(store.isShipped(name), (shipped) => (shipped ? Effect.fail(readonly(name)) : Effect.void))

    return Skills.of({
      list: Effect.map(store.list, (skills) => ({ skills: skills.map((s) => summary(redactor, s)) })),

      get: (name) =>
        Effect.gen(function* () {
          // Looked up among the listed skills, so the name never becomes a path by itself.
          const skill = yield* Effect.flatMap(store.find(name), Option.match({
            onNone: () => Effect.fail(new SkillNotFound({ message: `no skill '${name.slice(0, 80)}'` })),
            onSome: Effect.succeed
          }))
          const read = yield* store.readSkillMd(skill, GET_READ_BYTES)
          // Redact the whole text first, then cut: a secret straddling the cut is still masked.
          const redacted = redactor.text(read.text)
          const cut = cutUtf8(redacted, SKILL_LIMITS.skillMdBytesMax)
          const truncated = cut.length < redacted.length || !read.complete
          return {
            name: redactor.text(skill.name),
            source: skill.source,
            category: skill.category === null ? null : redactor.text(skill.category),
            skill_md: cut,
            files: shownFiles(redactor, skill.files),
            ...(truncated ? { truncated: true } : {})
          }
        }),

      put: (name, skillMd, files) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* checkName(name)
          yield* notShipped(name)
          const blocked = yield* store.blocked(name)
          if (Option.isSome(blocked)) return yield* invalid(blocked.value)
          const push = { name, skillMd, files: files ?? {} }
          const problem = skillPushProblem(push, secretProblem)
          if (problem !== null) return yield* invalid(problem)
          const row = yield* proposals.put(caller.client, makeSkillCard(push))
          return { status: "pending_approval" as const, approval_id: row.id, name }
        }),

      remove: (name) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* checkName(name)
          yield* notShipped(name)
          if (Option.isNone(yield* store.findDropin(name))) {
            return yield* new SkillNotFound({ message: `no drop-in skill '${name}'` })
          }
          const row = yield* proposals.remove(caller.client, name)
          return { status: "pending_approval" as const, approval_id: row.id, name }
        })
    })
  })

/**
 * `Skills` with the Redactor's secret-shape check, which also refuses the exact values of the secrets
 * the bridge holds (admin key, Hermes keys). Needs `SkillStore`, `SkillProposals`, `Redactor`.
 */
export const SkillsLive = Layer.effect(
  Skills,
  Effect.flatMap(Redactor, (redactor) => makeSkills((file, text) => redactor.skillProblem(file, text)))
)
