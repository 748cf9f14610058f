/**
 * Whether this daemon joins the run followers' cluster, and at which address (`cluster.host`,
 * `cluster.port`; docs/REFERENCE.md). Only on PostgreSQL: the cluster's storage is the bridge's
 * database. `cluster.port: 0`, or no port to derive (bridge port 0: a test's ephemeral port), means
 * no cluster: the daemon follows its runs itself, as on SQLite.
 */
import { Option } from "effect"
import { CLUSTER_PORT_OFFSET } from "../domain/limits.ts"
import type { ClusterSection, StorageSection } from "./schema.ts"

export interface ClusterAddress {
  readonly host: string
  readonly port: number
}

/** The port: `cluster.port`, else the bridge port + 1000 when that is a port (0 when it is not). */
export const clusterPort = (cluster: ClusterSection, bridgePort: number): number => {
  if (cluster.port !== undefined) return cluster.port
  const derived = bridgePort + CLUSTER_PORT_OFFSET
  return bridgePort > 0 && derived <= 65535 ? derived : 0
}

/** This replica's runner address, or none when the daemon runs without a cluster. */
export const clusterAddress = (config: {
  readonly bridge: { readonly port: number }
  readonly storage: StorageSection
  readonly cluster: ClusterSection
}): Option.Option<ClusterAddress> => {
  if (config.storage.url === undefined) return Option.none()
  const port = clusterPort(config.cluster, config.bridge.port)
  return port === 0 ? Option.none() : Option.some({ host: config.cluster.host, port })
}
