/**
 * A SKILL.md frontmatter block: `---` on the first line, YAML, then a closing `---` (or `...`) line.
 * Used both to validate a push and to list skills on disk (where an unreadable block is `broken`).
 */
import { Either } from "effect"
import * as YAML from "yaml"

export interface Frontmatter {
  /** The decoded YAML mapping. */
  readonly data: { readonly [k: string]: unknown }
  /** The text after the closing line. */
  readonly body: string
}

const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/

const isMapping = (u: unknown): u is { readonly [k: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Splits and decodes the frontmatter; the left side says why it cannot be read. */
export const readFrontmatter = (text: string): Either.Either<Frontmatter, string> => {
  const open = OPEN.exec(text)
  if (open === null) return Either.left("SKILL.md must start with a frontmatter block: a first line of ---")
  const rest = text.slice(open[0].length)
  const lines = rest.split("\n")
  let offset = 0
  let closeAt = -1
  let closeLength = 0
  for (const line of lines) {
    if (CLOSE.test(line.replace(/\r$/, ""))) {
      closeAt = offset
      closeLength = line.length + 1
      break
    }
    offset += line.length + 1
  }
  if (closeAt < 0) return Either.left("the SKILL.md frontmatter block has no closing --- line")
  const yamlText = rest.slice(0, closeAt)
  let data: unknown
  try {
    // `uniqueKeys` (the default) refuses duplicate keys; aliases are capped by the library's default.
    data = YAML.parse(yamlText, { prettyErrors: false })
  } catch (e) {
    const first = String((e as Error).message ?? e).split("\n")[0] ?? "unreadable YAML"
    return Either.left(`the SKILL.md frontmatter is not valid YAML: ${first.slice(0, 200)}`)
  }
  if (!isMapping(data)) return Either.left("the SKILL.md frontmatter must be a YAML mapping of keys to values")
  return Either.right({ data, body: rest.slice(Math.min(rest.length, closeAt + closeLength)) })
}

/** The category Hermes files a skill under (`metadata.hermes.category`), if the frontmatter sets one. */
export const frontmatterCategory = (fm: Frontmatter): string | null => {
  const metadata = fm.data["metadata"]
  const hermes = isMapping(metadata) ? metadata["hermes"] : undefined
  const category = isMapping(hermes) ? hermes["category"] : undefined
  return typeof category === "string" && category.trim() !== "" ? category : null
}

export const frontmatterString = (fm: Frontmatter, key: string): string | null => {
  const v = fm.data[key]
  return typeof v === "string" ? v : null
}
