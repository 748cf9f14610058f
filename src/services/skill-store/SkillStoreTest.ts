/**
 * `SkillStoreTest`: the real skill store over a fresh temporary folder (drop-in skills and parked
 * versions under it, removed when the layer is released) and the package's shipped skills, or
 * `shippedDir`: what the store is about is files on disk, which a fake would only imitate. It
 * records skills as files there; `store.dirs` says where.
 */
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { makeSkillStore, SHIPPED_SKILLS_DIR, SkillStore } from "./SkillStore.ts"

export const SkillStoreTest = (options: { readonly shippedDir?: string } = {}) =>
  Layer.scoped(
    SkillStore,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "agent-bridge-skills-" })
      return yield* makeSkillStore({
        shippedDir: options.shippedDir ?? SHIPPED_SKILLS_DIR,
        dropinDir: path.join(root, "dropin"),
        parkedDir: path.join(root, "skills-parked")
      })
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))
