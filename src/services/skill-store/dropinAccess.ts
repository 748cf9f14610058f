/**
 * The drop-in skills folder is read by Hermes, which often runs as another user than the bridge
 * (the usual split on a shared box). Its default place is `<data_dir>/skills`, inside the data dir
 * that keeps the database and the admin key from other users. So:
 * - the drop-in folder is 0755 and what the bridge writes in it 0755 (folders) / 0644 (files),
 *   set explicitly (a umask such as 077 would otherwise leave them unreadable to Hermes);
 * - a data dir that holds the drop-in folder is 0711: other users may pass through it to the
 *   folder by its name, but not list the data dir or read anything else in it (the database, its
 *   WAL, the admin key and the embedded simulator's file are 0600; parked skill versions 0700);
 * - `readabilityProblems` says what still keeps other users out (a parent folder without `x` for
 *   others, a skill folder or file written by hand without `r`), for `agent-bridge doctor`.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const DROPIN_DIR_MODE = 0o755
export const DROPIN_FILE_MODE = 0o644
/** The data dir's mode when the drop-in folder lies inside it: traversable by others, not listable. */
export const DATA_DIR_PASS_MODE = 0o711

/** True when `dropinDir` lies strictly inside `dataDir`. */
export const dropinInside = (dataDir: string, dropinDir: string): boolean => {
  const rel = path.relative(path.resolve(dataDir), path.resolve(dropinDir))
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)
}

/**
 * Creates the drop-in folder if it is missing and opens the way to it for other users: the folder
 * 0755; the data dir, and every folder between it and the drop-in folder, gain `x` for group and
 * others (0711 when private). The folder's contents are left as they are (`readabilityProblems`
 * names any a user made private). Synchronous: a few system calls at start.
 */
export const openDropinForHermes = (dataDir: string, dropinDir: string): void => {
  const inside = dropinInside(dataDir, dropinDir)
  // A data dir made here is private first, as everywhere else that makes it.
  if (inside) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  fs.mkdirSync(dropinDir, { recursive: true, mode: DROPIN_DIR_MODE })
  fs.chmodSync(dropinDir, (fs.statSync(dropinDir).mode & 0o7777) | DROPIN_DIR_MODE)
  if (!inside) return
  for (let dir = path.dirname(path.resolve(dropinDir)); ; dir = path.dirname(dir)) {
    fs.chmodSync(dir, (fs.statSync(dir).mode & 0o7777) | 0o011)
    if (path.resolve(dir) === path.resolve(dataDir) || path.dirname(dir) === dir) break
  }
}

/** Makes a skill folder the bridge wrote readable by others (whatever the umask left), recursively. */
export const openSkillFolder = (dir: string): void => {
  fs.chmodSync(dir, DROPIN_DIR_MODE)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) openSkillFolder(p)
    else if (entry.isFile()) fs.chmodSync(p, DROPIN_FILE_MODE)
  }
}

/** Paths looked at, at most, inside the drop-in folder (doctor stays quick on a large folder). */
const MAX_ENTRIES = 5000

/**
 * What keeps a user other than the bridge's from reading the drop-in folder, as paths with what
 * they lack, at most `limit` of them: a parent without `x` for others, the folder or a folder in it
 * without `r` and `x`, a file without `r`. Hidden entries (the bridge's `.staging`) are skipped.
 * Empty when others can read every skill.
 */
export const readabilityProblems = (dropinDir: string, limit = 5): ReadonlyArray<string> => {
  const out: Array<string> = []
  const resolved = path.resolve(dropinDir)
  if (!fs.existsSync(resolved)) return out
  const parents: Array<string> = []
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    parents.unshift(dir)
    if (path.dirname(dir) === dir) break
  }
  for (const dir of parents) {
    if ((fs.statSync(dir).mode & 0o001) === 0) out.push(`${dir} (not traversable by others)`)
  }
  let seen = 0
  const walk = (dir: string) => {
    if (out.length >= limit || seen >= MAX_ENTRIES) return
    const mode = fs.statSync(dir).mode
    if ((mode & 0o005) !== 0o005) {
      out.push(`${dir} (folder not readable by others)`)
      return
    }
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= limit || ++seen > MAX_ENTRIES) return
      if (entry.name.startsWith(".")) continue
      const p = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile() && (fs.statSync(p).mode & 0o004) === 0) out.push(`${p} (file not readable by others)`)
    }
  }
  walk(resolved)
  return out.slice(0, limit)
}
