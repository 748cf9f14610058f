#!/usr/bin/env node
// Runs the bundle in dist/ (`npm run build`; `npm install` builds it) when it is newer than every
// source file and the package manifests; otherwise the TypeScript sources through tsx, so an edited
// clone never runs stale code and `npx agent-bridge` works without a build. The bundle starts several
// times faster (docs/PERFORMANCE.md). AGENT_BRIDGE_FROM_SOURCE=1 always runs the sources.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const bundle = path.join(root, "dist", "agent-bridge.mjs")

/** The newest modification time under `dir` (about 200 files: a few milliseconds). */
const newestUnder = (dir) => {
  let newest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(p) : fs.statSync(p).mtimeMs)
  }
  return newest
}

const bundleIsFresh = () => {
  let built
  try {
    built = fs.statSync(bundle).mtimeMs
  } catch {
    return false
  }
  const manifests = ["package.json", "package-lock.json"].map((f) => {
    try {
      return fs.statSync(path.join(root, f)).mtimeMs
    } catch {
      return 0
    }
  })
  return Math.max(newestUnder(path.join(root, "src")), ...manifests) <= built
}

if (process.env.AGENT_BRIDGE_FROM_SOURCE !== "1" && bundleIsFresh()) {
  await import(pathToFileURL(bundle).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/main.ts")
}
