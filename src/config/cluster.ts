/**
 * Whether this daemon joins the run followers' cluster, and at which address (`cluster.host`,
 * `cluster.port`; docs/REFERENCE.md). Only on PostgreSQL: the cluster's storage is the bridge's
 * database. `cluster.port: 0`, or no port to derive (bridge port 0: a test's ephemeral port), means
 * no cluster: the daemon follows its runs itself, as on SQLite.
 */
import { Data, Either, Option, Redacted } from "effect"
import * as fs from "node:fs"
import { CLUSTER_PORT_OFFSET, CLUSTER_SECRET_MIN_CHARS } from "../domain/limits.ts"
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

/** A cluster without its shared secret: the start is refused (docs/DEPLOY.md, "Several replicas"). */
export class ClusterSecretMissing extends Data.TaggedError("ClusterSecretMissing")<{ readonly why: string }> {
  override get message() {
    return `${this.why}: replicas on PostgreSQL prove to each other that they hold the same secret before their cluster port reads anything; set cluster.secret (AGENT_BRIDGE_CLUSTER_SECRET) or cluster.secret_file on every replica, at least ${CLUSTER_SECRET_MIN_CHARS} characters (openssl rand -base64 32), or cluster.port: 0 for a single daemon`
  }
}

/**
 * The replicas' shared secret: `cluster.secret`, else the trimmed content of `cluster.secret_file`.
 * Neither, an unreadable file or a short secret is `ClusterSecretMissing` (never quoting the value).
 */
export const clusterSecret = (
  cluster: ClusterSection,
  readFile: (path: string) => string = (p) => fs.readFileSync(p, "utf8")
): Either.Either<Redacted.Redacted<string>, ClusterSecretMissing> => {
  if (cluster.secret !== undefined) return Either.right(cluster.secret)
  if (cluster.secret_file === undefined) return Either.left(new ClusterSecretMissing({ why: "cluster.secret is not set" }))
  const file = cluster.secret_file
  let text: string
  try {
    text = readFile(file).trim()
  } catch (e) {
    return Either.left(new ClusterSecretMissing({ why: `cannot read cluster.secret_file ${file} (${(e as { code?: string }).code ?? "unreadable"})` }))
  }
  if (text.length < CLUSTER_SECRET_MIN_CHARS) {
    return Either.left(new ClusterSecretMissing({ why: `cluster.secret_file ${file} holds ${text.length === 0 ? "nothing" : `fewer than ${CLUSTER_SECRET_MIN_CHARS} characters`}` }))
  }
  return Either.right(Redacted.make(text))
}
