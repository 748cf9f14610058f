/**
 * `SkillsTest`: the real skill service over `SkillStoreTest` (a temporary folder) and
 * `SkillProposalsTest` (an in-memory inbox): it records a put or delete as a pending inbox row, and
 * provides the store and the inbox beside `Skills`. Needs a `Redactor`.
 */
import { Layer } from "effect"
import { SkillProposalsTest } from "../inbox/SkillProposalsTest.ts"
import { SkillStoreTest } from "../skill-store/SkillStoreTest.ts"
import { SkillsLive } from "./SkillsLive.ts"

export const SkillsTest = (options: { readonly shippedDir?: string } = {}) =>
  SkillsLive.pipe(Layer.provideMerge(SkillProposalsTest), Layer.provideMerge(SkillStoreTest(options)))
