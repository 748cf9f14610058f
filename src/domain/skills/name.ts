import { SKILL_LIMITS } from "../limits.ts"
/**
 * The skill name grammar: the documented rule (1 to 64 lowercase letters, digits and hyphens, not
 * starting with a hyphen) plus the Agent Skills naming rule (no trailing hyphen, no
 * `--`). A name that passes is also a safe single path segment.
 */

const GRAMMAR = /^[a-z0-9-]+$/

export const skillNameProblem = (name: string): string | null => {
  if (name.length === 0) return "the skill name is empty"
  if (name.length > SKILL_LIMITS.nameMax) {
    return `the skill name is ${name.length} characters long; at most ${SKILL_LIMITS.nameMax} are allowed`
  }
  if (!GRAMMAR.test(name)) return "the skill name may hold only lowercase letters, digits and hyphens"
  if (name.startsWith("-")) return "the skill name must not start with a hyphen"
  if (name.endsWith("-")) return "the skill name must not end with a hyphen"
  if (name.includes("--")) return "the skill name must not hold two hyphens in a row"
  return null
}
