/**
 * `SkillProposalsTest`: the real proposal queue (the pending rules, the per-client cap) over
 * `InboxStoreTest`; it records each proposal as an inbox row there, and provides that store.
 */
import { Layer } from "effect"
import { InboxStoreTest } from "./InboxStoreTest.ts"
import { SkillProposalsLive } from "./SkillProposals.ts"

export const SkillProposalsTest = SkillProposalsLive.pipe(Layer.provideMerge(InboxStoreTest))
