/**
 * The teach side composed, for the daemon and the CLI to provide in one piece:
 * - `TeachServices`: `Memory`, `DirectMemory` (both `bridge.memory_disabled` when `memory.enabled`
 *   is false), `Skills`, `Inbox`, `SkillProposals`, `InboxStore`, `SkillStore`, `MemoryStore`.
 *   The daemon's inbox also sweeps old history (`InboxRetentionLive`) and notices rows the CLI
 *   decides from its own process (`watchOtherConnections`).
 * - `InboxServices`: what `agent-bridge inbox` needs (`Inbox`, `SkillStore`), and the process's
 *   `ChangeFeed` over its `SqlClient` (`ChangeFeedLive`: one per build, shared with whoever else
 *   provides it, e.g. the daemon's storage layer).
 * Both need `SqlClient` (migrated), `AppConfig` and `HermesClient`; `TeachServices` also `Redactor`.
 */
import { Layer } from "effect"
import { DirectMemoryLive } from "../services/memory/DirectMemory.ts"
import { MemoryStoreLive } from "../services/memory/MemoryStoreLive.ts"
import { MemoryLive } from "../services/memory/MemoryLive.ts"
import { SkillsLive } from "../services/skills/SkillsLive.ts"
import { SkillStoreLive } from "../services/skill-store/SkillStore.ts"
import { watchOtherConnections } from "../services/inbox/InboxChanges.ts"
import { InboxLive } from "../services/inbox/InboxLive.ts"
import { InboxRetentionLive } from "../services/inbox/retention.ts"
import { ChangeFeedLive } from "../storage/ChangeFeedLive.ts"

export const InboxServices = InboxLive.pipe(Layer.provideMerge(SkillStoreLive), Layer.provideMerge(ChangeFeedLive))

export const TeachServices = Layer.mergeAll(MemoryLive, DirectMemoryLive, SkillsLive, InboxRetentionLive, watchOtherConnections()).pipe(
  Layer.provideMerge(InboxServices),
  Layer.provideMerge(MemoryStoreLive)
)
