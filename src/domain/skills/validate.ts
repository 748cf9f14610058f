/**
 * Every check a skill push passes before anything is queued (docs/REFERENCE.md). The rules run in the order of `PUSH_RULES` and the first problem is the answer, so a
 * client fixes one thing at a time and the same push always gets the same message.
 *
 * The order goes from cheap and structural to expensive: names, then sizes and encoding (so YAML is
 * never parsed from a huge or broken text), then invisible characters (a BOM is named as such rather
 * than as a missing frontmatter), then frontmatter, `data:` URIs and secret shapes.
 */
import { Either } from "effect"
import { dataUriProblem } from "./dataUri.ts"
import { fileNameProblem, reviewableTextProblem } from "./files.ts"
import { readFrontmatter } from "./frontmatter.ts"
import { codePointLabel, findInvisible, showInvisible } from "./invisible.ts"
import { SKILL_MD } from "./limits.ts"
import { skillNameProblem } from "./name.ts"
import { SKILL_LIMITS } from "../limits.ts"

export interface SkillPush {
  readonly name: string
  readonly skillMd: string
  /** Supporting files: plain name → text. */
  readonly files: Readonly<Record<string, string>>
}

/**
 * The secret-shape check: the message for the first value in `text` the redactor would mask that is
 * not a placeholder, or null. Supplied by the redaction area (`src/domain/redact/`).
 */
export type SecretCheck = (fileName: string, text: string) => string | null

/** The push's texts as `[file name, text]`: SKILL.md first, then the files by name. */
export const pushEntries = (push: SkillPush): ReadonlyArray<readonly [string, string]> => [
  [SKILL_MD, push.skillMd],
  ...Object.keys(push.files).sort().map((f) => [f, push.files[f] ?? ""] as const)
]

const invisibleMessage = (label: string, text: string): string | null => {
  const hit = findInvisible(text)
  return hit === null
    ? null
    : `${label} holds control, format or invisible characters (${codePointLabel(hit.codePoint)} at line ${hit.line}, column ${hit.column})`
}

const frontmatterProblem = (push: SkillPush): string | null =>
  Either.match(readFrontmatter(push.skillMd), {
    onLeft: (problem) => problem,
    onRight: (fm) => {
      const name = fm.data["name"]
      if (name !== push.name) {
        return typeof name === "string"
          ? `the frontmatter name '${showInvisible(name).slice(0, 80)}' is not the skill name '${push.name}'`
          : `the frontmatter must hold name: ${push.name}`
      }
      const description = fm.data["description"]
      if (typeof description !== "string" || description.trim() === "") {
        return "the frontmatter must hold a non-blank description (a string)"
      }
      const length = [...description].length
      if (length > SKILL_LIMITS.descriptionMax) {
        return `the frontmatter description is ${length} characters long; at most ${SKILL_LIMITS.descriptionMax} are allowed`
      }
      return null
    }
  })

export interface PushRule {
  readonly id: string
  readonly check: (push: SkillPush, secretProblem: SecretCheck) => string | null
}

const firstOf = <A>(items: ReadonlyArray<A>, f: (a: A) => string | null): string | null => {
  for (const item of items) {
    const problem = f(item)
    if (problem !== null) return problem
  }
  return null
}

/** The rules, in the order they run. */
export const PUSH_RULES: ReadonlyArray<PushRule> = [
  { id: "name", check: (p) => skillNameProblem(p.name) },
  {
    id: "file_count",
    check: (p) => {
      const n = Object.keys(p.files).length
      return n > SKILL_LIMITS.filesMax ? `the push has ${n} files; at most ${SKILL_LIMITS.filesMax} are allowed` : null
    }
  },
  { id: "file_names", check: (p) => firstOf(Object.keys(p.files).sort(), fileNameProblem) },
  {
    id: "file_name_characters",
    check: (p) => firstOf(Object.keys(p.files).sort(), (f) => invisibleMessage(`the file name '${showInvisible(f)}'`, f))
  },
  { id: "reviewable_text", check: (p) => reviewableTextProblem(pushEntries(p)) },
  { id: "characters", check: (p) => firstOf(pushEntries(p), ([file, text]) => invisibleMessage(`'${file}'`, text)) },
  { id: "frontmatter", check: frontmatterProblem },
  { id: "data_uri", check: (p) => dataUriProblem(p.skillMd) },
  { id: "secrets", check: (p, secretProblem) => firstOf(pushEntries(p), ([file, text]) => secretProblem(file, text)) }
]

/** The first problem of the push, or null when it may be queued. */
export const skillPushProblem = (push: SkillPush, secretProblem: SecretCheck): string | null =>
  firstOf(PUSH_RULES, (rule) => rule.check(push, secretProblem))
