/**
 * Parked skill versions: what an approved put or delete moved out of the drop-in directory, kept
 * under `<data_dir>/skills-parked/<name>/<version>/` with a `<version>.json` note beside it (when,
 * why, and where in the drop-in directory it came from) so it can be restored.
 */
import { Option, Schema } from "effect"
import { iso } from "../../common/time.ts"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { moveDir, randomSuffix } from "./disk.ts"

export interface ParkedVersion {
  readonly name: string
  /** `<UTC timestamp>-<random>`; sorts by time. */
  readonly version: string
  readonly parked_at: string
  readonly reason: string
  /** Where the folder sat, relative to the drop-in directory (`<name>` or `<category>/<name>`). */
  readonly location: string
}

const Note = Schema.Struct({ parked_at: Schema.String, reason: Schema.String, location: Schema.String })
type Note = typeof Note.Type
/** A note as written below; one that does not parse or has the wrong shape reads as none. */
const decodeNote = Schema.decodeUnknownOption(Schema.parseJson(Note))

const VERSION = /^\d{8}T\d{6}\d{3}Z-[0-9a-f]{8}$/

/** `now` (epoch ms) as compact ISO text, and a random suffix. */
export const versionId = (now: number): string =>
  `${iso(now).replace(/[-:]/g, "").replace(".", "")}-${randomSuffix()}`

/** Moves `sourceDir` into the parking area and writes its note. */
export const park = async (
  parkedRoot: string,
  name: string,
  sourceDir: string,
  location: string,
  reason: string,
  now: number
): Promise<ParkedVersion> => {
  await fs.mkdir(parkedRoot, { recursive: true, mode: 0o700 })
  const version = versionId(now)
  const target = path.join(parkedRoot, name, version)
  await moveDir(sourceDir, target)
  const note: Note = { parked_at: iso(now), reason, location }
  await fs.writeFile(path.join(parkedRoot, name, `${version}.json`), `${JSON.stringify(note, null, 2)}\n`, { mode: 0o600 })
  return { name, version, ...note }
}

const readNote = async (file: string): Promise<Note | null> => {
  const text = await fs.readFile(file, "utf8").catch(() => null)
  return text === null ? null : Option.getOrNull(decodeNote(text))
}

/** Parked versions of `name` (or of every skill), newest first. */
export const listParked = async (parkedRoot: string, name?: string): Promise<ReadonlyArray<ParkedVersion>> => {
  const names = name !== undefined ? [name] : await fs.readdir(parkedRoot).catch(() => [] as Array<string>)
  const out: Array<ParkedVersion> = []
  for (const n of names) {
    const entries = await fs.readdir(path.join(parkedRoot, n)).catch(() => [] as Array<string>)
    for (const entry of entries) {
      if (!VERSION.test(entry)) continue
      const note = await readNote(path.join(parkedRoot, n, `${entry}.json`))
      out.push({ name: n, version: entry, ...(note ?? { parked_at: "", reason: "", location: n }) })
    }
  }
  return out.sort((a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0))
}

/** The parked folder of a version, or null when there is no such version. */
export const parkedDir = async (parkedRoot: string, name: string, version: string): Promise<string | null> => {
  if (!VERSION.test(version)) return null
  const dir = path.join(parkedRoot, name, version)
  return fs.stat(dir).then((s) => (s.isDirectory() ? dir : null), () => null)
}

export const forgetNote = (parkedRoot: string, name: string, version: string) =>
  fs.rm(path.join(parkedRoot, name, `${version}.json`), { force: true })
