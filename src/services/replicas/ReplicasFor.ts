/** The `Replicas` a configuration calls for: the cluster's reader when it has a cluster address, else one replica. */
import { Layer, Option } from "effect"
import { clusterAddress } from "../../config/cluster.ts"
import type { ResolvedConfig } from "../../config/load.ts"
import { replicaIdOf } from "../../config/schema.ts"
import { ReplicasPg } from "./pg/ReplicasPg.ts"
import { type Replicas, ReplicasSingle } from "./Replicas.ts"
import type { SqlClient } from "@effect/sql"

/**
 * `asRunner`: the daemon (its own runner is marked as this replica); the CLI is no runner and
 * marks none.
 */
export const ReplicasFor = (config: ResolvedConfig, asRunner: boolean): Layer.Layer<Replicas, never, SqlClient.SqlClient> =>
  Option.match(clusterAddress(config), {
    onNone: () => ReplicasSingle(replicaIdOf(config.bridge)),
    onSome: (address) =>
      ReplicasPg(asRunner ? Option.some({ address: `${address.host}:${address.port}`, replicaId: replicaIdOf(config.bridge) }) : Option.none())
  })
