/**
 * File-system steps the skill store is built from. Plain `node:fs/promises` wrapped once here, so
 * a fault the operator can fix (a full disk, a read-only or forbidden folder) is
 * `bridge.store_unavailable` naming the path, and any other I/O failure is an `Internal` whose cause
 * is logged under the incident it carries.
 *
 * Not Effect's FileSystem: the store's steps are atomic renames and directory swaps whose errno codes
 * (ENOSPC, EROFS, EACCES, EXDEV, ENOENT) decide what happens next, and the storage-fault tests
 * provoke them on real folders; FileSystem would fold them into its coarser `reason` and hide the
 * code one `cause` deeper, for no test that wants a fake disk here.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Internal } from "../../domain/errors.ts"
import { StoreUnavailable } from "../../domain/errors.ts"
import { failWithIncident } from "../../common/incident.ts"
import { storageFaultMessage, storageFaultOf } from "../../storage/faults.ts"
import { DROPIN_DIR_MODE, DROPIN_FILE_MODE } from "./dropinAccess.ts"

/** Runs `f`; a storage fault is `store_unavailable`, any other rejection is logged with `what` and becomes `bridge.internal`. */
export const io = <A>(what: string, f: () => Promise<A>): Effect.Effect<A, Internal | StoreUnavailable> =>
  Effect.tryPromise({ try: f, catch: (cause) => cause }).pipe(
    Effect.catchAll((cause): Effect.Effect<never, Internal | StoreUnavailable> => {
      const fault = storageFaultOf(cause)
      if (fault !== null) {
        const message = storageFaultMessage(fault, `the skill store could not ${what}`, "the skills folder")
        return Effect.logWarning(message).pipe(Effect.zipRight(Effect.fail(new StoreUnavailable({ message }))))
      }
      return failWithIncident(`skill store: ${what} failed`, cause)
    })
  )

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

/** True when `p` exists (following symlinks). */
export const exists = (p: string): Promise<boolean> => fs.stat(p).then(() => true, () => false)

export const isDirectory = (p: string): Promise<boolean> => fs.stat(p).then((s) => s.isDirectory(), () => false)

export const isFile = (p: string): Promise<boolean> => fs.stat(p).then((s) => s.isFile(), () => false)

/** Subdirectory names of `dir` that do not start with "." (none when `dir` is missing). */
export const subdirectories = async (dir: string): Promise<ReadonlyArray<string>> => {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    if (code(e) === "ENOENT" || code(e) === "ENOTDIR") return []
    throw e
  })
  const names: Array<string> = []
  for (const e of entries) {
    if (e.name.startsWith(".")) continue
    if (e.isDirectory() || (e.isSymbolicLink() && (await isDirectory(path.join(dir, e.name))))) names.push(e.name)
  }
  return names.sort()
}

/**
 * Files under `dir` as relative `/`-joined paths (SKILL.md at the top and hidden entries excluded),
 * sorted. Symlinked directories are not descended into; depth and count are capped so a huge folder cannot stall a list.
 */
export const listFiles = async (dir: string, maxEntries = 200, maxDepth = 4): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = []
  const walk = async (rel: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      if (out.length >= maxEntries) return
      // Hidden entries (.git, editor droppings) are not supporting files.
      if (e.name.startsWith(".")) continue
      const relPath = rel === "" ? e.name : `${rel}/${e.name}`
      if (e.isDirectory()) {
        if (depth < maxDepth) await walk(relPath, depth + 1)
      } else if (relPath !== "SKILL.md") {
        out.push(relPath)
      }
    }
  }
  await walk("", 1)
  return out
}

/**
 * Reads at most `maxBytes` of a file as text. `complete` is false when the file is longer; `utf8`
 * is false when the bytes read are not valid UTF-8 (a cut at the end is not counted against it).
 */
export const readText = async (file: string, maxBytes: number): Promise<{ text: string; complete: boolean; utf8: boolean; size: number }> => {
  const handle = await fs.open(file, "r")
  try {
    const { size } = await handle.stat()
    const length = Math.min(size, maxBytes)
    const buffer = Buffer.alloc(length)
    const { bytesRead } = await handle.read(buffer, 0, length, 0)
    const bytes = buffer.subarray(0, bytesRead)
    const complete = bytesRead >= size
    let utf8 = true
    let text: string
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete })
    } catch {
      utf8 = false
      text = new TextDecoder("utf-8").decode(bytes)
    }
    return { text, complete, utf8, size }
  } finally {
    await handle.close()
  }
}

/**
 * Moves a directory; across file systems (EXDEV) it is copied and then removed. A source the bridge
 * may not remove (a read-only folder) is refused before anything is copied, and a removal that
 * fails anyway takes the copy back, so a failed move never leaves the folder in both places.
 */
export const moveDir = async (from: string, to: string): Promise<void> => {
  await fs.mkdir(path.dirname(to), { recursive: true, mode: 0o700 })
  try {
    await fs.rename(from, to)
  } catch (e) {
    if (code(e) !== "EXDEV") throw e
    await fs.access(path.dirname(from), fs.constants.W_OK)
    await fs.access(from, fs.constants.W_OK)
    await fs.cp(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true })
    try {
      await fs.rm(from, { recursive: true })
    } catch (removal) {
      // What could be removed is gone from the source; copy it back from the copy, then drop the copy.
      await fs.cp(to, from, { recursive: true, force: false, errorOnExist: false, verbatimSymlinks: true }).catch(() => undefined)
      await fs.rm(to, { recursive: true, force: true })
      throw removal
    }
  }
}

/**
 * Writes a skill folder's files fresh (`wx`: nothing is overwritten), readable by others (Hermes
 * may run as another user): the modes are set explicitly, since the umask narrows those asked for.
 */
export const writeSkillFolder = async (dir: string, skillMd: string, files: Readonly<Record<string, string>>): Promise<void> => {
  await fs.mkdir(dir, { recursive: true, mode: DROPIN_DIR_MODE })
  await fs.chmod(dir, DROPIN_DIR_MODE)
  const write = async (file: string, content: string) => {
    await fs.writeFile(file, content, { encoding: "utf8", flag: "wx", mode: DROPIN_FILE_MODE })
    await fs.chmod(file, DROPIN_FILE_MODE)
  }
  await write(path.join(dir, "SKILL.md"), skillMd)
  for (const [name, content] of Object.entries(files)) {
    // Names were validated as plain; this keeps a bug elsewhere from ever writing outside `dir`.
    if (path.basename(name) !== name || name === "." || name === "..") throw new Error(`not a plain file name: ${JSON.stringify(name)}`)
    await write(path.join(dir, name), content)
  }
}

export const randomSuffix = () => randomBytes(4).toString("hex")
