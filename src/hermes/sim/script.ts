/**
 * Turns a run's parsed input into a plan: the list of steps the simulated agent performs. Pure, so
 * the plan for a given input is predictable (tests assert on outputs built from the same helpers).
 * The executor (`executor.ts`) interprets the plan against the simulator's state.
 */
import type { Directives, ParsedInput } from "./directives.ts"

export type Step =
  | { readonly _tag: "Emit"; readonly event: string; readonly fields: Readonly<Record<string, unknown>> }
  | {
      readonly _tag: "Approval"
      readonly command: string
      readonly description: string
      readonly approved: ReadonlyArray<Step>
      readonly denied: ReadonlyArray<Step>
    }
  | {
      readonly _tag: "Clarify"
      readonly question: string
      readonly choices: ReadonlyArray<string>
      readonly multiSelect: boolean
      readonly after: (answer: string | null) => ReadonlyArray<Step>
    }
  | { readonly _tag: "Restart" }
  | { readonly _tag: "Fail"; readonly error: string }
  | { readonly _tag: "Complete" }

export interface Plan {
  readonly steps: ReadonlyArray<Step>
  /** Time between frames, before the speed factor; 0 means "only yield". */
  readonly gapMs: number
  /** Cut the subscriber's connection right after it was sent this many frames (once per run). */
  readonly dropAfterFrames: number | null
}

export interface PlanContext {
  /** The build has clarification and the run opted in with `"clarify": true`. */
  readonly clarifyAvailable: boolean
  /** What `[sim:subagent]` sends (`SimOptions.subagentEvents`). Default `both`. */
  readonly subagentEvents?: "both" | "start" | "none" | undefined
}

/** The fake secrets `[sim:secrets]` writes into the output (each split across deltas). */
export const SIM_FAKE_SECRETS: ReadonlyArray<string> = [
  "sk-proj-SIMfake0123456789abcdefABCDEF0123456789",
  "ghp_SIMfake0123456789abcdefghijklmnopqrstu",
  "SIMfakeBearerToken0123456789abcdef",
  "AKIASIMFAKE01234567"
]

export const SIM_SECRETS_TEXT = [
  "Here are the credentials I found in the repository:",
  `export OPENAI_API_KEY=${SIM_FAKE_SECRETS[0]}`,
  `GITHUB_TOKEN=${SIM_FAKE_SECRETS[1]}`,
  `Authorization: Bearer ${SIM_FAKE_SECRETS[2]}`,
  `aws_access_key_id = ${SIM_FAKE_SECRETS[3]}`
].join("\n")

export const SIM_UNICODE_TEXT = "Unicode check: naïve café — 東京 🚀 ✓"

export const SIM_APPROVAL_COMMAND = "rm -rf ./build"
export const SIM_CLARIFY_QUESTION = "Which environment should I deploy to?"
export const SIM_CLARIFY_CHOICES: ReadonlyArray<string> = ["staging", "production"]

/** The answer of a run without output-shaping directives. */
export const defaultAnswer = (prompt: string): string => {
  const topic = prompt === "" ? "your request" : `"${prompt.length > 80 ? `${prompt.slice(0, 77)}...` : prompt}"`
  return `I looked into ${topic} and ran a quick check. Everything is in order.`
}

/** Exactly `bytes` bytes of numbered ASCII lines. */
export const fillerText = (bytes: number): string => {
  const parts: Array<string> = []
  let size = 0
  for (let line = 1; size < bytes; line++) {
    const text = `line ${line}: the quick brown fox jumps over the lazy dog\n`
    parts.push(text)
    size += text.length
  }
  return parts.join("").slice(0, bytes)
}

/** Splits `text` into `n` consecutive non-empty pieces (fewer when the text is shorter than `n`). */
export const splitInto = (text: string, n: number): ReadonlyArray<string> => {
  const count = Math.max(1, Math.min(n, text.length))
  const out: Array<string> = []
  for (let i = 0; i < count; i++) {
    out.push(text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)))
  }
  return out.filter((p) => p !== "")
}

/** Pieces of at most `size` characters. */
export const splitEvery = (text: string, size: number): ReadonlyArray<string> => splitInto(text, Math.ceil(text.length / size))

const emit = (event: string, fields: Record<string, unknown> = {}): Step => ({ _tag: "Emit", event, fields })
const deltas = (pieces: ReadonlyArray<string>): ReadonlyArray<Step> => pieces.map((delta) => emit("message.delta", { delta }))
const toolPair = (tool: string, preview: string | null, error = false): ReadonlyArray<Step> => [
  emit("tool.started", { tool, preview }),
  emit("tool.completed", { tool, duration: 0.012, error })
]

/** The answer text and how it is cut into deltas, from the output-shaping directives. */
const answerPieces = (d: Directives, prompt: string): ReadonlyArray<string> => {
  let text = d.outputBytes !== null ? fillerText(d.outputBytes) : defaultAnswer(prompt)
  if (d.unicode) text = `${text}\n${SIM_UNICODE_TEXT}`
  if (d.secrets) text = `${text}\n${SIM_SECRETS_TEXT}`
  if (d.events !== null) return splitInto(text.padEnd(d.events, "."), d.events - 3)
  if (d.deltas !== null) return splitInto(text, d.deltas)
  // Fake secrets are cut every 7 characters so every one of them straddles several deltas.
  if (d.secrets) return splitEvery(text, 7)
  if (d.outputBytes !== null) return splitEvery(text, 512)
  return splitEvery(text, 8)
}

const insertAt = (steps: ReadonlyArray<Step>, afterEmits: number, step: Step): ReadonlyArray<Step> => {
  let seen = 0
  for (let i = 0; i < steps.length; i++) {
    if (steps[i]?._tag === "Emit" && ++seen === afterEmits) return [...steps.slice(0, i + 1), step, ...steps.slice(i + 1)]
  }
  // Not enough frames: just before the terminal step.
  return [...steps.slice(0, -1), step, ...steps.slice(-1)]
}

const countEmits = (steps: ReadonlyArray<Step>) => steps.filter((s) => s._tag === "Emit").length

export const makePlan = (parsed: ParsedInput, ctx: PlanContext): Plan => {
  const d = parsed.directives
  if (parsed.errors.length > 0) return { steps: [{ _tag: "Fail", error: parsed.errors.join("; ") }], gapMs: 0, dropAfterFrames: null }

  const intro: Array<Step> = []
  if (d.reasoning) intro.push(emit("reasoning.available", { text: "The user wants a quick check; a directory listing will do." }))
  // A sub-agent is a `delegate_task` tool call. 0.19 runs it inside the call and sends no
  // `subagent.*` event; 0.20.1 and the 0.22 fork run it in the background: `subagent.start` comes
  // inside the call, and its end after the run's, on no stream.
  if (d.subagent && ctx.subagentEvents === "none") intro.push(...toolPair("delegate_task", "Check the build"))
  else if (d.subagent && ctx.subagentEvents === "start") {
    intro.push(emit("tool.started", { tool: "delegate_task", preview: "Check the build" }))
    intro.push(emit("subagent.start", { preview: "Check the build", goal: "Check the build", task_count: 1, task_index: 0, subagent_id: "sa-0-sim", depth: 0 }))
    intro.push(emit("tool.completed", { tool: "delegate_task", duration: 0.012, error: false }))
  } else if (d.subagent) {
    intro.push(emit("subagent.start", { preview: "Checking the build", goal: "Check the build", subagent_id: "sub_1" }))
    intro.push(emit("subagent.complete", {
      preview: "Checking the build", subagent_id: "sub_1", status: "completed", summary: "Build is fine", duration_seconds: 0.02
    }))
  }

  let body: Array<Step>
  if (d.fail !== null) {
    body = [...toolPair("terminal", "ls -la"), emit("message.delta", { delta: "Working on it" }), { _tag: "Fail", error: d.fail }]
  } else if (d.approval) {
    body = [
      emit("tool.started", { tool: "terminal", preview: SIM_APPROVAL_COMMAND }),
      {
        _tag: "Approval",
        command: SIM_APPROVAL_COMMAND,
        description: "recursive delete",
        approved: [
          emit("tool.completed", { tool: "terminal", duration: 0.02, error: false }),
          ...deltas(splitEvery(`Ran \`${SIM_APPROVAL_COMMAND}\` after approval.`, 8))
        ],
        denied: [
          emit("tool.completed", { tool: "terminal", duration: 0, error: true }),
          ...deltas(splitEvery(`The command \`${SIM_APPROVAL_COMMAND}\` was denied, so I did not run it.`, 8))
        ]
      },
      { _tag: "Complete" }
    ]
  } else if (d.clarify !== null && ctx.clarifyAvailable) {
    body = [
      ...toolPair("read_file", "deploy.yaml"),
      {
        _tag: "Clarify",
        question: SIM_CLARIFY_QUESTION,
        choices: SIM_CLARIFY_CHOICES,
        multiSelect: d.clarify.multiSelect,
        after: (answer) =>
          deltas(splitEvery(answer === null ? "No answer came, so I used staging." : `You chose: ${answer}. Deploying there.`, 8))
      },
      { _tag: "Complete" }
    ]
  } else {
    const pieces = answerPieces(d, parsed.prompt)
    const note = d.clarify !== null ? deltas(["(clarification unavailable: I used the defaults) "]) : []
    body = [...toolPair("terminal", "ls -la"), ...note, ...deltas(pieces), { _tag: "Complete" }]
  }

  let steps: ReadonlyArray<Step> = [...intro, ...body]
  const frames = countEmits(steps) + 1
  const half = Math.max(1, Math.floor(frames / 2))
  if (d.restart) steps = insertAt(steps, half, { _tag: "Restart" })
  const gapMs = d.slowMs !== null ? d.slowMs / frames : frames > 50 ? 0 : 1
  return { steps, gapMs, dropAfterFrames: d.dropAfter === null ? null : d.dropAfter < 0 ? half : d.dropAfter }
}
