/**
 * Skill folder names and supporting-file names of drop-in skills are free (Hermes and the operator
 * write that folder; the naming rule binds only pushes), so `agent_skills_list` and `agent_skill_get`
 * pass them through the Redactor like the rest of what they return. Ordinary names stay as written.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Skills } from "../../src/services/skills/Skills.ts"
import { as } from "./support.ts"
import { makeStack, skillMd, writeSkill } from "./skillFixtures.ts"

const TOKEN = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d"
const HF = "hf_QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy"

const list = Effect.flatMap(Skills, (s) => s.list).pipe(as("alice"))
const get = (name: string) => Effect.flatMap(Skills, (s) => s.get(name)).pipe(as("alice"))

describe("skill and file names leaving the bridge", () => {
  it.effect("mask a secret in a drop-in skill's folder name and in its file names", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, `deploy-${TOKEN}`, skillMd("deploy", "A deploy skill."))
    writeSkill(stack.dirs.dropinDir, "helper", skillMd("helper", "Helps."), {
      [`HF_TOKEN=${HF}.txt`]: "x",
      "notes.md": "n",
      [`keys/${TOKEN}.json`]: "{}"
    })
    return Effect.gen(function* () {
      const { skills } = yield* list
      const shown = JSON.stringify(skills)
      expect(shown).not.toContain(TOKEN.slice(4))
      expect(shown).not.toContain(HF.slice(3))
      expect(skills.map((s) => s.name)).toContain("deploy-***REDACTED***")
      const helper = skills.find((s) => s.name === "helper")!
      expect(helper.files).toEqual(["HF_TOKEN=***REDACTED***", "keys/***REDACTED***.json", "notes.md"])
      const doc = yield* get("helper")
      expect(doc.files).toEqual(helper.files)
      expect(doc.name).toBe("helper")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("keep ordinary names, token_count and max_tokens among them", () => {
    const stack = makeStack()
    writeSkill(stack.dirs.dropinDir, "token-counter", skillMd("token-counter", "Counts tokens."), {
      "token_count.md": "n",
      "max_tokens.py": "x",
      "api_key_env.txt": "x"
    })
    return Effect.gen(function* () {
      const doc = yield* get("token-counter")
      expect(doc.name).toBe("token-counter")
      expect(doc.files).toEqual(["api_key_env.txt", "max_tokens.py", "token_count.md"])
    }).pipe(Effect.provide(stack.layer))
  })
})
