/**
 * Where a running daemon's embedded simulator can be found: `<data_dir>/embedded-hermes.json`
 * (mode 0600, like `admin.key`: it holds the simulator's keys), written when the daemon starts its
 * simulator and removed when it stops. The CLI's `inbox` and `doctor` run in their own processes;
 * with no Hermes configured they read this file to reach the daemon's simulator (where its runs
 * live) instead of starting an empty one of their own, whose answer to a run approval would be
 * "no such run".
 */
import { Effect, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { SimProfileInfo } from "./sim/server.ts"

export const EMBEDDED_FILE = "embedded-hermes.json"

const Published = Schema.Struct({
  pid: Schema.Int,
  url: Schema.String,
  profiles: Schema.Array(Schema.Struct({ name: Schema.String, key: Schema.String, url: Schema.String }))
})
export type Published = typeof Published.Type

const fileIn = (dataDir: string) => path.join(dataDir, EMBEDDED_FILE)

/** Writes the file (atomically, 0600) for the scope's lifetime; it is removed when the scope closes. */
export const publishEmbedded = (dataDir: string, url: string, profiles: ReadonlyArray<SimProfileInfo>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const file = fileIn(dataDir)
      const body: Published = { pid: process.pid, url, profiles: profiles.map(({ name, key, url }) => ({ name, key, url })) }
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const temp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temp, JSON.stringify(body), { mode: 0o600 })
      fs.renameSync(temp, file)
    }),
    () => Effect.sync(() => {
      // Only our own file: a daemon started later over the same data dir may have replaced it.
      if (Option.exists(readEmbedded(dataDir, { requireLive: false }), (p) => p.pid === process.pid)) fs.rmSync(fileIn(dataDir), { force: true })
    })
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The running daemon's simulator, if one is published and (with `requireLive`) its process is
 * alive. An unreadable or malformed file counts as none (a daemon killed mid-write leaves at most a
 * temp file, so this only happens if someone edited it).
 */
export const readEmbedded = (dataDir: string, options: { readonly requireLive: boolean } = { requireLive: true }): Option.Option<Published> => {
  let text: string
  try {
    text = fs.readFileSync(fileIn(dataDir), "utf8")
  } catch {
    return Option.none()
  }
  return Schema.decodeUnknownOption(Schema.parseJson(Published))(text).pipe(
    Option.filter((p) => !options.requireLive || isAlive(p.pid))
  )
}
