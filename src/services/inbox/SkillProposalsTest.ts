/**
 * `SkillProposalsTest`: the real proposal queue (the pending rules, the per-client cap) over
 * `InboxStoreTest`; it records each proposal as an inbox row there, and provides that store.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { InboxStoreTest, InboxStoreTestOn } from "./InboxStoreTest.ts"
import { SkillProposalsLive } from "./SkillProposals.ts"

export const SkillProposalsTest = SkillProposalsLive.pipe(Layer.provideMerge(InboxStoreTest))

/** The same over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const SkillProposalsTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>) => SkillProposalsLive.pipe(Layer.provideMerge(InboxStoreTestOn(db)))
