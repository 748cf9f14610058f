/**
 * HTML that is escaped by construction. Everything an inbox page shows comes from remote agents or
 * from Hermes, so the only way to build markup is the `html` template tag: literal parts are markup,
 * every interpolated value is escaped unless it is itself `Html` made by this tag.
 */

const HTML = Symbol.for("agent-bridge/inbox/Html")

export interface Html {
  readonly [HTML]: true
  readonly text: string
}

const make = (text: string): Html => ({ [HTML]: true, text })

export const isHtml = (u: unknown): u is Html => typeof u === "object" && u !== null && HTML in u

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Escapes text for element content and for quoted attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

/** What a template may interpolate: nothing (`null`, `undefined`, `false`), text, numbers, markup, or lists of these. */
export type HtmlValue = Html | string | number | null | undefined | false | ReadonlyArray<HtmlValue>

const render = (v: HtmlValue): string => {
  if (v === null || v === undefined || v === false) return ""
  if (typeof v === "string") return escapeHtml(v)
  if (typeof v === "number") return escapeHtml(String(v))
  if (isHtml(v)) return v.text
  return v.map(render).join("")
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<HtmlValue>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + (strings[i + 1] ?? "")
  return make(out)
}

/** A whole document: the doctype, then `body`. */
export const documentText = (body: Html): string => `<!doctype html>\n${body.text}`
