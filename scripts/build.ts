/**
 * Bundles the daemon and CLI into `dist/agent-bridge.mjs` with esbuild (`npm run build`; `npm install`
 * runs it through `prepare`). `bin/agent-bridge.js` runs this bundle while it is newer than every
 * source file, else the TypeScript sources through tsx.
 *
 * Why (issue 9, docs/PERFORMANCE.md): from source, start-up spent most of its CPU in tsx's module
 * hooks and in compiling ~700 separate ES modules; one pre-transpiled file starts several times
 * faster. Whitespace and syntax are minified, names kept (stack traces stay readable), and the
 * output is ASCII: V8 keeps a module's whole source in the heap for as long as the module lives,
 * and one non-ASCII character (a comment's "…") makes it a two-byte string, so the unminified 6.3 MiB
 * bundle held about 13 MiB; minified and ASCII it is 4.4 MiB held as one byte per character
 * (issue 28: the heap's large-object space 15.1 → 5.6 MiB, RSS after loading 127 → 117 MiB). A source map is written beside it for
 * `NODE_OPTIONS=--enable-source-maps`.
 *
 * Modules that find files next to themselves (`new URL("./static/…", import.meta.url)`: the inbox's
 * assets, the shipped skills) get `import.meta.url` rewritten to their own source file's URL,
 * relative to the bundle, so they keep reading the files in the package beside `dist/`.
 *
 *   npx tsx scripts/build.ts [outdir=dist]
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const BUNDLE_NAME = "agent-bridge.mjs"
/** Bundled CommonJS dependencies call require(); an ES module has none of its own. */
export const BUNDLE_BANNER = 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);'

/** Each source module's `import.meta.url` becomes its own file's URL, computed from the bundle's. */
const sourceModuleUrls = (outdir: string): esbuild.Plugin => ({
  name: "source-module-urls",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(path.join(ROOT, "src") + path.sep)) return undefined
      const text = await fs.promises.readFile(args.path, "utf8")
      if (!text.includes("import.meta.url")) return undefined
      const relative = path.relative(outdir, args.path).split(path.sep).join("/")
      return { contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: "ts" }
    })
  }
})

/**
 * esbuild's `charset: "ascii"` leaves non-ASCII characters in regex literals and template literals
 * (the inbox's "·", "←"); each becomes a `\uXXXX` escape, which means the same there (the `html`
 * tag reads the cooked strings; no `String.raw` template holds one). A few columns of the source
 * map shift on those lines.
 */
const asciiOnly = (file: string): void => {
  const text = fs.readFileSync(file, "utf8")
  // Without the `u` flag the pattern matches UTF-16 code units: a surrogate pair becomes two escapes.
  if (/[^\x00-\x7f]/.test(text)) fs.writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
}

/** `entry`: another program of the repo bundled the same way (a bench's daemon, say). */
export const buildBundle = async (outdir = path.join(ROOT, "dist"), entry = path.join(ROOT, "src", "main.ts")): Promise<{ file: string; bytes: number; ms: number }> => {
  const t0 = performance.now()
  const file = path.join(outdir, BUNDLE_NAME)
  await esbuild.build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // The native SQLite binding is loaded from node_modules at run time.
    external: ["better-sqlite3"],
    banner: { js: BUNDLE_BANNER },
    minifyWhitespace: true,
    minifySyntax: true,
    charset: "ascii",
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
    plugins: [sourceModuleUrls(outdir)]
  })
  asciiOnly(file)
  return { file, bytes: fs.statSync(file).size, ms: performance.now() - t0 }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `build.ts [OUTDIR] [--entry FILE]`: FILE instead of src/main.ts (scripts/bench-mcp-hot.ts's BRIDGE_BUNDLE).
  const entryAt = process.argv.indexOf("--entry")
  const entry = entryAt > 0 && process.argv[entryAt + 1] !== undefined ? path.resolve(process.argv[entryAt + 1]!) : undefined
  const positional = process.argv[2] !== undefined && process.argv[2] !== "--entry" ? process.argv[2] : undefined
  const outdir = path.resolve(positional ?? path.join(ROOT, "dist"))
  const { file, bytes, ms } = await buildBundle(outdir, entry)
  console.error(`built ${path.relative(process.cwd(), file)} (${(bytes / 2 ** 20).toFixed(1)} MiB) in ${(ms / 1000).toFixed(1)} s`)
}
