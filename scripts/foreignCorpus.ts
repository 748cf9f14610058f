/**
 * A real text corpus that is not ours, for the redactor's false-positive count: the docs and
 * sources of a few installed packages (effect's README and ES modules, TypeScript's `lib.*.d.ts`,
 * yaml's README and dist), read in a fixed order up to `maxBytes`. Any span the redactor masks in
 * it is a false positive (none of these files holds a live credential).
 */
import fs from "node:fs"
import path from "node:path"

const ROOT = path.resolve(import.meta.dirname, "..")
const NM = path.join(ROOT, "node_modules")

const filesIn = (dir: string, keep: (name: string) => boolean, depth = 3): Array<string> => {
  if (!fs.existsSync(dir)) return []
  const out: Array<string> = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name)
    if (e.isDirectory() && depth > 0) out.push(...filesIn(p, keep, depth - 1))
    else if (e.isFile() && keep(e.name)) out.push(p)
  }
  return out
}

export interface ForeignFile {
  readonly file: string
  readonly text: string
}

/** The corpus, about `maxBytes` long, a third from each package family. */
export const foreignCorpus = (maxBytes: number): ReadonlyArray<ForeignFile> => {
  const families = [
    [path.join(NM, "effect", "README.md"), ...filesIn(path.join(NM, "effect", "dist", "esm"), (n) => n.endsWith(".js"))],
    filesIn(path.join(NM, "typescript", "lib"), (n) => /^lib\..*\.d\.ts$/.test(n), 0),
    [path.join(NM, "yaml", "README.md"), ...filesIn(path.join(NM, "yaml", "dist"), (n) => n.endsWith(".js"))]
  ]
  const out: Array<ForeignFile> = []
  for (const files of families) {
    let bytes = 0
    for (const file of files) {
      if (bytes >= maxBytes / families.length) break
      if (!fs.existsSync(file)) continue
      const text = fs.readFileSync(file, "utf8")
      bytes += Buffer.byteLength(text)
      out.push({ file: path.relative(NM, file), text })
    }
  }
  return out
}
