/**
 * The teach side composed, for the daemon and the CLI to provide in one piece:
 * - `TeachServices`: `Memory`, `DirectMemory` (both `bridge.memory_disabled` when `memory.enabled`
 *   is false), `Skills`, `Inbox`, `SkillProposals`, `InboxStore`, `SkillStore`, `MemoryLayer`.
 *   The daemon's inbox also sweeps old history (`InboxRetentionLive`) and notices rows the CLI
 *   decides from its own process (`watchOtherConnections`).
 * - `InboxServices`: what `agent-bridge inbox` needs (`Inbox`, `SkillStore`).
 * Both need `SqlClient` (migrated), `AppConfig` and `HermesClient`; `TeachServices` also `Redactor`.
 */
import { Layer } from "effect"
import { DirectMemoryFromConfig } from "../memory/DirectMemory.ts"
import { MemoryLayerSqlite } from "../memory/MemoryLayerSqlite.ts"
import { MemoryFromConfig } from "../memory/MemoryLive.ts"
import { SkillsLive } from "../skills/SkillsLive.ts"
import { SkillStoreLive } from "../skills/SkillStore.ts"
import { watchOtherConnections } from "./InboxChanges.ts"
import { InboxStack } from "./InboxLive.ts"
import { InboxRetentionLive } from "./retention.ts"

export const InboxServices = InboxStack.pipe(Layer.provideMerge(SkillStoreLive))

export const TeachServices = Layer.mergeAll(MemoryFromConfig, DirectMemoryFromConfig, SkillsLive, InboxRetentionLive, watchOtherConnections()).pipe(
  Layer.provideMerge(InboxServices),
  Layer.provideMerge(MemoryLayerSqlite)
)
