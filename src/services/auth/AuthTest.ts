/**
 * `AuthTest`: the real Auth over a fresh in-memory database (migrated like the real one), the
 * better double for the key digests, scopes and revocations a fake would only imitate. It records
 * what the real one does (the `clients` table, kept in `SqlClient`, which it also provides, with the change feed over it). Needs
 * `AppConfig` (set `bridge.admin_key`, or the admin key file is made in `data_dir`) and `Redactor`.
 */
import { DbMemory } from "../../storage/Db.ts"
import { Layer } from "effect"
import { AuthLive } from "./Auth.ts"
import { ChangeFeedLive } from "../../storage/ChangeFeedLive.ts"

export const AuthTest = AuthLive.pipe(Layer.provideMerge(ChangeFeedLive), Layer.provideMerge(DbMemory))
