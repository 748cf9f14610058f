/**
 * Where a client's call waits while many runs stream (bench-scale's streaming window): three
 * witnesses taken over the same window as the `agent_run_status` times.
 * - the bench process's own event-loop delay: a late client reads every answer late;
 * - each daemon's event-loop delay, from its `/metrics` (`nodejs_eventloop_lag_*`: prom-client
 *   resets the histogram at each scrape, so a scrape at the window's start and one at its end give
 *   the window's own figures);
 * - `/healthz` asked on the same pace as the status calls: a request that needs the loop and one
 *   query on the database but none of the MCP path. Fast health with slow status puts the wait in
 *   the MCP path or the run's read; both slow puts it in the loop (or the database connection).
 */
import { monitorEventLoopDelay } from "node:perf_hooks"

export interface LoopDelay { readonly p99Ms: number; readonly maxMs: number }

/** The bench process's own loop delay from now until `stop()`. */
export const ownLoopDelay = (): { readonly stop: () => LoopDelay } => {
  const h = monitorEventLoopDelay({ resolution: 20 })
  h.enable()
  return {
    stop: () => {
      h.disable()
      return { p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 }
    }
  }
}

/** A Prometheus text gauge's value (the first sample of that name), in ms. */
const gaugeMs = (text: string, name: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1)) * 1000
}

/** One scrape of a daemon's loop delay since its previous scrape. */
export const daemonLoopDelay = async (baseUrl: string, adminKey: string): Promise<LoopDelay> => {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminKey}` }, signal: AbortSignal.timeout(120_000) })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`/metrics: HTTP ${res.status} ${text.slice(0, 200)}`)
  return { p99Ms: gaugeMs(text, "nodejs_eventloop_lag_p99_seconds"), maxMs: gaugeMs(text, "nodejs_eventloop_lag_max_seconds") }
}

/** `/healthz` on `baseUrl` in `inFlight` loops, each at most once per `paceMs`, until `until()`. */
export const healthTimes = async (baseUrl: string, inFlight: number, paceMs: number, until: () => boolean, times: Array<number>): Promise<void> => {
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (!until()) {
      const t0 = performance.now()
      try {
        const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(120_000) })
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
