/**
 * The throwaway PostgreSQL of the tests (test/support/postgres.ts): where it finds its binaries,
 * what it does when it cannot start (skip, or fail under CI), and one real cluster: trust on
 * 127.0.0.1, fsync off, databases on demand, gone after stop.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { findPgBin, onStartFailure, PG_USER, type PgServer, startPostgres } from "../support/postgres.ts"
import { runProcess } from "../support/runProcess.ts"

const tools = (dir: string) => {
  fs.mkdirSync(dir, { recursive: true })
  for (const t of ["initdb", "pg_ctl"]) fs.writeFileSync(path.join(dir, t), "")
  return dir
}

describe("findPgBin", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-bin-"))
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it("takes PATH first, then the newest /usr/lib/postgresql/N/bin", () => {
    const debian = path.join(root, "debian")
    tools(path.join(debian, "9", "bin"))
    tools(path.join(debian, "15", "bin"))
    fs.mkdirSync(path.join(debian, "16", "bin"), { recursive: true }) // no tools in it
    expect(findPgBin({ PATH: "/nonexistent" }, debian)).toBe(path.join(debian, "15", "bin"))
    const onPath = tools(path.join(root, "onpath"))
    expect(findPgBin({ PATH: ["/nonexistent", onPath].join(path.delimiter) }, debian)).toBe(fs.realpathSync(onPath))
    // Links on PATH (Debian's /usr/local/bin/initdb): the folder they point into.
    const links = path.join(root, "links")
    fs.mkdirSync(links)
    for (const t of ["initdb", "pg_ctl"]) fs.symlinkSync(path.join(debian, "9", "bin", t), path.join(links, t))
    expect(findPgBin({ PATH: links }, debian)).toBe(fs.realpathSync(path.join(debian, "9", "bin")))
    expect(findPgBin({ PATH: "" }, path.join(root, "none"))).toBeUndefined()
  })
})

describe("onStartFailure", () => {
  it("skips with the reason when CI is not set", () => {
    expect(onStartFailure("no initdb", {}).skip).toContain("no initdb")
    expect(onStartFailure("no initdb", { CI: "false" }).skip).toContain("no initdb")
  })
  it("fails when CI is set", () => {
    expect(() => onStartFailure("no initdb", { CI: "1" })).toThrow(/CI is set.*no initdb/)
    expect(() => onStartFailure("no initdb", { CI: "true" })).toThrow(/never skipped/)
  })
})

describe("a throwaway cluster", () => {
  let server: PgServer | undefined
  afterAll(async () => server?.stop(), 120_000)

  const psql = async (url: string, query: string) => {
    const bin = findPgBin()!
    const r = await runProcess(path.join(bin, "psql"), [url, "-At", "-c", query], { timeoutMs: 60_000 })
    if (r.status !== 0) throw new Error(r.stderr)
    return r.stdout.trim()
  }

  it("starts on loopback with fsync off, makes databases, and is gone after stop", async () => {
    server = await startPostgres()
    const url = await server.createDatabase()
    const other = await server.createDatabase()
    expect(url).not.toBe(other)
    expect(url).toMatch(new RegExp(`^postgres://${PG_USER}@127\\.0\\.0\\.1:${server.port}/`))
    expect(await psql(url, "SHOW fsync")).toBe("off")
    expect(await psql(url, "SHOW listen_addresses")).toBe("127.0.0.1")
    expect(await psql(url, "SHOW unix_socket_directories")).toBe(server.dir)
    // Trust for the socket and 127.0.0.1 only.
    expect(await psql(url, "SELECT string_agg(type || ':' || coalesce(address, '') || ':' || auth_method, ',') FROM pg_hba_file_rules")).toBe(
      "local::trust,host:127.0.0.1:trust"
    )
    const named = await server.createDatabase("named_one")
    expect(await psql(named, "SELECT current_database()")).toBe("named_one")
    const { dir, port } = server
    await server.stop()
    await server.stop() // idempotent
    server = undefined
    expect(fs.existsSync(dir)).toBe(false)
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port }, () => (s.destroy(), resolve(false)))
      s.on("error", () => resolve(true))
    })
    expect(refused).toBe(true)
  }, 300_000)
})
