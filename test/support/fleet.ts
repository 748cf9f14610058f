/**
 * A team deployment for tests (issue 25): N bridge daemons (`agent-bridge serve` processes) on one
 * PostgreSQL database, their run followers shared through `@effect/cluster` (each replica its own
 * `cluster.port`, one `cluster.secret`), in front of one Hermes simulator in the test's process (it outlives the
 * replicas), behind nginx configured with docs/DEPLOY.md's block as written (`nginx.ts`).
 *
 * Each replica keeps its port, config file and data dir for the fleet's life, so `restart` (SIGKILL
 * or SIGTERM, then start again) brings back the same replica, as a supervisor would; nginx keeps its
 * upstream list and routes around a dead one (the documented `max_fails`/`fail_timeout`).
 *
 * The database comes from the caller (`usePostgres().database(ctx)`), so every file or test gets a
 * fresh one on the PostgreSQL project's server.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { tempDir } from "./daemon.ts"
import { type DaemonProcess, spawnDaemon } from "./daemonProcess.ts"
import { freeLoopbackPort } from "./freePort.ts"
import { type Nginx, startNginx } from "./nginx.ts"

/** The same admin key on every replica (docs/DEPLOY.md: `bridge.admin_key`). */
export const FLEET_ADMIN_KEY = "hal0bk_fleet0test0admin0key000000000000"
/** The replicas' shared `cluster.secret` (docs/DEPLOY.md: required with replicas). */
export const FLEET_CLUSTER_SECRET = "fleet-cluster-secret-0123456789abcdefghij"

export interface FleetReplica {
  /** `r0`, `r1`, …: stable across restarts. */
  readonly name: string
  readonly port: number
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** `127.0.0.1:<port>`, as nginx's access log names the upstream. */
  readonly address: string
  readonly configFile: string
  /** The live process (a new one after each `restart`/`start`). */
  readonly process: () => DaemonProcess
  readonly isRunning: () => boolean
  /** Every output of every process of this replica so far (each process's newest 64 KiB). */
  readonly output: () => string
  /** Stops the process with `signal` (default SIGKILL) and waits for its exit. */
  readonly kill: (signal?: NodeJS.Signals) => Promise<void>
  /** Starts it again (after a kill) on the same port, config and data dir; resolves when ready. */
  readonly start: () => Promise<void>
  /** kill(signal), then start. */
  readonly restart: (signal?: NodeJS.Signals) => Promise<void>
}

export interface FleetOptions {
  /** The PostgreSQL URL of a fresh database. */
  readonly storageUrl: string
  readonly replicas: number
  /** A running simulator to share (default: one started for the fleet, closed with it). */
  readonly sim?: SimulatorAsync
  /** Merged into each replica's config (a top-level key at a time: `{ limits: {...} }`). */
  readonly config?: Readonly<Record<string, unknown>>
  /** Put nginx in front (default true). */
  readonly nginx?: boolean
  /** nginx's port (default: a free one), when the replicas' config must name nginx's address (`oauth.issuer`). */
  readonly nginxPort?: number
  /** How long each replica's start may take (default 300 s: several cold starts at once on the loaded two-core machine). */
  readonly readyTimeoutMs?: number
}

export interface Fleet {
  readonly sim: SimulatorAsync
  readonly replicas: ReadonlyArray<FleetReplica>
  /** nginx in front (throws when the fleet was made without it). */
  readonly nginx: () => Nginx
  /** The address clients use: nginx's URL. */
  readonly url: () => string
  readonly adminKey: string
  /** Kills every replica (SIGKILL), nginx, and the simulator if the fleet started it. Idempotent. */
  readonly stop: () => Promise<void>
}

const replicaConfig = (o: FleetOptions, sim: SimulatorAsync, dir: string, i: number, port: number, clusterPort: number) => ({
  ...o.config,
  bridge: {
    port,
    data_dir: path.join(dir, `data-${i}`),
    admin_key: FLEET_ADMIN_KEY,
    trusted_proxies: ["127.0.0.1"],
    replica_id: `r${i}`,
    ...((o.config?.["bridge"] as object | undefined) ?? {})
  },
  // The bridge's capacity is the simulator's cap unless the test sets it (its queue would stand in front).
  hermes: { url: sim.url, key: sim.profiles[0]!.key, max_concurrent_runs: sim.handle.state.options.maxConcurrentRuns, ...((o.config?.["hermes"] as object | undefined) ?? {}) },
  storage: { url: o.storageUrl },
  cluster: { port: clusterPort, secret: FLEET_CLUSTER_SECRET, ...((o.config?.["cluster"] as object | undefined) ?? {}) }
})

/** Starts the replicas at once (a new database: the schema is made under the migration lock), then nginx. */
export const startFleet = async (o: FleetOptions): Promise<Fleet> => {
  const sim = o.sim ?? (await startSimulatorAsync({ generation: "new" }))
  const dir = tempDir()
  const replicas: Array<FleetReplica> = []
  for (let i = 0; i < o.replicas; i++) {
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, `replica-${i}.yaml`)
    fs.writeFileSync(configFile, YAML.stringify(replicaConfig(o, sim, dir, i, port, await freeLoopbackPort())))
    let current: DaemonProcess | undefined
    let earlier = ""
    const start = async () => {
      if (current?.isRunning() === true) throw new Error(`replica r${i} is running already`)
      if (current !== undefined) earlier += current.output()
      current = await spawnDaemon({ configFile, port, readyTimeoutMs: o.readyTimeoutMs ?? 300_000 })
    }
    const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
      await current?.kill(signal)
    }
    replicas.push({
      name: `r${i}`,
      port,
      url: `http://127.0.0.1:${port}`,
      address: `127.0.0.1:${port}`,
      configFile,
      process: () => {
        if (current === undefined) throw new Error(`replica r${i} was never started`)
        return current
      },
      isRunning: () => current?.isRunning() === true,
      output: () => earlier + (current?.output() ?? ""),
      kill,
      start,
      restart: async (signal) => {
        await kill(signal)
        await start()
      }
    })
  }
  let nginx: Nginx | undefined
  const stop = async () => {
    for (const r of replicas) await r.kill("SIGKILL").catch(() => undefined)
    await nginx?.stop()
    if (o.sim === undefined) await sim.close()
  }
  try {
    await Promise.all(replicas.map((r) => r.start()))
    if (o.nginx ?? true) nginx = await startNginx(replicas.map((r) => r.address), o.nginxPort)
  } catch (e) {
    await stop()
    throw e
  }
  const proxy = () => {
    if (nginx === undefined) throw new Error("this fleet has no nginx in front")
    return nginx
  }
  return { sim, replicas, nginx: proxy, url: () => proxy().url, adminKey: FLEET_ADMIN_KEY, stop }
}
