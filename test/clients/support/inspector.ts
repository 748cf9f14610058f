/** The MCP Inspector's CLI, one call per process, as a script or a person would run it. */
import type { ProcessResult } from "../../support/runProcess.ts"
import { BIN, describeRun, run } from "./tools.ts"

export type Era = "legacy" | "modern"

export interface InspectorCall {
  readonly run: ProcessResult
  /** The parsed `--format json` stdout: `{result}` (exit 0, or 5 for a tool's isError) or `{error}`. */
  readonly json: { readonly result?: any; readonly error?: { code: string; message: string } }
}

export const inspector = async (options: {
  readonly url: string
  readonly key: string
  readonly era: Era
  readonly env: Record<string, string>
  readonly args: ReadonlyArray<string>
}): Promise<InspectorCall> => {
  const r = await run(
    `${BIN}/mcp-inspector`,
    [
      "--cli",
      "--server-url",
      options.url,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${options.key}`,
      "--protocol-era",
      options.era,
      "--connect-timeout",
      "20000",
      "--format",
      "json",
      "-q",
      ...options.args
    ],
    { env: options.env, timeoutMs: 120_000 }
  )
  // The result goes to stdout, an error envelope to stderr (with -q nothing else is printed).
  const text = r.stdout.trim() !== "" ? r.stdout : r.stderr
  let json: InspectorCall["json"]
  try {
    json = JSON.parse(text.trim().split("\n").pop() ?? "") as InspectorCall["json"]
  } catch {
    throw new Error(`the Inspector printed no JSON:\n${describeRun(r)}`)
  }
  return { run: r, json }
}

/** A tools/call through the Inspector (`--tool-args-json`, so values pass verbatim). */
export const callTool = async (
  base: Omit<Parameters<typeof inspector>[0], "args">,
  name: string,
  args: Record<string, unknown>
): Promise<InspectorCall> => inspector({ ...base, args: ["--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(args)] })
