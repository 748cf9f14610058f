/**
 * Heap snapshots of a bench's daemon, to see what it holds per live run (scripts/heapDiff.ts).
 * Off unless BENCH_SCALE_HEAP_DIR names a directory: the daemon then starts with
 * `--heapsnapshot-signal=SIGUSR2` and writes there; `snapshot` signals it and waits until it answers
 * again (V8 writes the snapshot on the main thread, so an answer means the file is whole).
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const HEAP_DIR = process.env["BENCH_SCALE_HEAP_DIR"]

/** Node options for the daemon: none unless snapshots were asked for. */
export const heapNodeArgs = (): ReadonlyArray<string> =>
  HEAP_DIR === undefined ? [] : ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${HEAP_DIR}`]

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Takes one snapshot of `pid` (serving at `url`), saved as `<label>.heapsnapshot`; undefined when off. */
export const snapshot = async (pid: number, url: string, label: string): Promise<string | undefined> => {
  if (HEAP_DIR === undefined) return undefined
  fs.mkdirSync(HEAP_DIR, { recursive: true })
  const before = new Set(fs.readdirSync(HEAP_DIR))
  process.kill(pid, "SIGUSR2")
  const deadline = Date.now() + 900_000
  for (;;) {
    await sleep(1_000)
    const fresh = fs.readdirSync(HEAP_DIR).filter((f) => f.endsWith(".heapsnapshot") && !before.has(f))
    const answered = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(() => true, () => false)
    if (fresh.length > 0 && answered) {
      const target = path.join(HEAP_DIR, `${label}.heapsnapshot`)
      fs.renameSync(path.join(HEAP_DIR, fresh[0]!), target)
      return target
    }
    if (Date.now() > deadline) throw new Error(`no heap snapshot from pid ${pid} within 900 s`)
  }
}
