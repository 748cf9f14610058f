/**
 * Finds the skills in one root the way Hermes does (docs/SIMULATOR.md):
 * `<root>/<name>/SKILL.md`, or one category level `<root>/<category>/<name>/SKILL.md`. Folders
 * starting with "." (the store's staging area among them) are not skills.
 */
import { Either } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { frontmatterCategory, frontmatterString, readFrontmatter } from "../../domain/skills/frontmatter.ts"
import { isFile, listFiles, readText, subdirectories } from "./disk.ts"

export type SkillSource = "shipped" | "dropin"

/** A skill folder found on disk, with what its frontmatter says. */
export interface StoredSkill {
  readonly name: string
  readonly source: SkillSource
  /** Absolute folder path. */
  readonly dir: string
  /** The category folder it sits in, if any. */
  readonly folderCategory: string | null
  /** `metadata.hermes.category`, else the category folder. */
  readonly category: string | null
  readonly description: string | null
  /** ISO 8601 mtime of SKILL.md. */
  readonly mtime: string
  readonly files: ReadonlyArray<string>
  /** The frontmatter cannot be read (missing, not YAML, not a mapping, or SKILL.md is not UTF-8). */
  readonly broken: boolean
}

/** Frontmatter is at the top; this much of SKILL.md is enough to list a skill. */
const LIST_READ_BYTES = 256 * 1024

const describe = async (dir: string, name: string, source: SkillSource, folderCategory: string | null): Promise<StoredSkill> => {
  const file = path.join(dir, "SKILL.md")
  const [stat, read, files] = await Promise.all([
    fs.stat(file),
    // An unreadable SKILL.md (permissions, a dangling link) lists as broken, not as a failed list.
    readText(file, LIST_READ_BYTES).catch(() => null),
    listFiles(dir)
  ])
  const fm = read === null ? Either.left("SKILL.md cannot be read") : read.utf8 ? readFrontmatter(read.text) : Either.left("SKILL.md is not UTF-8")
  const base = { name, source, dir, folderCategory, mtime: stat.mtime.toISOString(), files }
  return Either.match(fm, {
    onLeft: () => ({ ...base, category: folderCategory, description: null, broken: true }),
    onRight: (f) => ({
      ...base,
      category: frontmatterCategory(f) ?? folderCategory,
      description: frontmatterString(f, "description"),
      broken: false
    })
  })
}

/** Every skill under `root`, sorted by name (none when `root` does not exist). */
export const scanRoot = async (root: string, source: SkillSource): Promise<ReadonlyArray<StoredSkill>> => {
  const found: Array<StoredSkill> = []
  for (const top of await subdirectories(root)) {
    const dir = path.join(root, top)
    if (await isFile(path.join(dir, "SKILL.md"))) {
      found.push(await describe(dir, top, source, null))
      continue
    }
    for (const inner of await subdirectories(dir)) {
      const innerDir = path.join(dir, inner)
      if (await isFile(path.join(innerDir, "SKILL.md"))) found.push(await describe(innerDir, inner, source, top))
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
