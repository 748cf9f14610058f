/**
 * Where a client's call waits while many runs stream (bench-scale's streaming window): three
 * witnesses taken over the same window as the `agent_run_status` times.
 * - the bench process's own event-loop delay: a late client reads every answer late;
 * - each daemon's event-loop delay, from its `/metrics` (`nodejs_eventloop_lag_*`: prom-client
 *   resets the histogram at each scrape, so a scrape at the window's start and one at its end give
 *   the window's own figures);
 * - `/healthz` on a pace of its own: a request that needs the loop and a query on the database but
 *   none of the MCP path;
 * - a path no route serves (a 404 from the router): the loop alone, no database, no MCP.
 * A slow 404 puts the wait in the loop; a fast 404 with a slow `/healthz` puts it in the database
 * connection (one on SQLite, taken by every statement); both fast with a slow status call, in the
 * MCP path or the run's read.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"

export interface LoopDelay { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number }

/** The bench process's own loop delay from now until `stop()`. */
export const ownLoopDelay = (): { readonly stop: () => LoopDelay } => {
  const h = monitorEventLoopDelay({ resolution: 20 })
  h.enable()
  return {
    stop: () => {
      h.disable()
      return { p50Ms: h.percentile(50) / 1e6, p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 }
    }
  }
}

/** A Prometheus text gauge's value (the first sample of that name), in ms. */
const gaugeMs = (text: string, name: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1)) * 1000
}

/**
 * One scrape of a daemon's loop delay since its previous scrape. A scrape the daemon does not answer
 * (a connection refused or timed out: its loop held, its accept queue full) is itself the finding:
 * it is printed, and the delays read NaN, so the run goes on to its other figures.
 */
export const daemonLoopDelay = async (baseUrl: string, adminKey: string): Promise<LoopDelay> => {
  const t0 = performance.now()
  try {
    const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminKey}` }, signal: AbortSignal.timeout(120_000) })
    const text = await res.text()
    if (res.status !== 200) throw new Error(`/metrics: HTTP ${res.status} ${text.slice(0, 200)}`)
    return { p50Ms: gaugeMs(text, "nodejs_eventloop_lag_p50_seconds"), p99Ms: gaugeMs(text, "nodejs_eventloop_lag_p99_seconds"), maxMs: gaugeMs(text, "nodejs_eventloop_lag_max_seconds") }
  } catch (e) {
    const cause = (e as { cause?: { code?: unknown } }).cause?.code ?? String(e)
    console.log(`[bench] ${baseUrl}/metrics did not answer after ${Math.round(performance.now() - t0)} ms (${String(cause)}); its loop delay reads NaN`)
    return { p50Ms: Number.NaN, p99Ms: Number.NaN, maxMs: Number.NaN }
  }
}

/** The path of the loop-only probe: no route serves it, so the router answers 404 at once. */
export const LOOP_PROBE_PATH = "/bench-scale-loop-probe"

/** GET `path` on `baseUrl` in `inFlight` loops, each at most once per `paceMs`, until `until()`. */
export const probeTimes = async (baseUrl: string, path: string, inFlight: number, paceMs: number, until: () => boolean, times: Array<number>): Promise<void> => {
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (!until()) {
      const t0 = performance.now()
      try {
        const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(120_000) })
        await res.text()
      } catch {
        // A timed-out probe still counts, at its whole time.
      }
      const ms = performance.now() - t0
      times.push(ms)
      if (paceMs > ms) await sleep(paceMs - ms)
    }
  }))
}
