/**
 * Characters an inbox card would not show as Hermes reads them (docs/REFERENCE.md): controls other than
 * tab, newline and carriage return (C0, DEL, C1); format characters (zero-width and joiners, bidi
 * marks, overrides and isolates, tag characters, the soft hyphen, the BOM, ...); private-use and
 * unassigned code points; U+2028 and U+2029; variation selectors; and U+034F. Ordinary emoji are
 * symbols (So) and pass as long as no joiner or variation selector rides along.
 *
 * `\p{Cn}` follows the Unicode version of Node's ICU, so "unassigned" means unassigned to the
 * runtime the bridge runs on. Lone surrogates are caught here too (`\p{Cs}`), though the UTF-8 rule
 * already refuses them.
 */
const INVISIBLE =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\p{Cf}\p{Co}\p{Cn}\p{Cs}\u2028\u2029\u034F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u

export interface InvisibleHit {
  readonly codePoint: number
  /** 1-based line and column (in code points) of the first hit. */
  readonly line: number
  readonly column: number
}

/** The first character the card would not show, with where it is; null when there is none. */
export const findInvisible = (text: string): InvisibleHit | null => {
  const m = INVISIBLE.exec(text)
  if (m === null) return null
  const before = text.slice(0, m.index)
  const lastNewline = before.lastIndexOf("\n")
  return {
    codePoint: m[0].codePointAt(0) ?? 0,
    line: before.split("\n").length,
    column: [...before.slice(lastNewline + 1)].length + 1
  }
}

export const codePointLabel = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`

/** `s` with every invisible character spelled as `\u{…}`, so a message can quote a name safely. */
export const showInvisible = (s: string): string =>
  s.replace(new RegExp(INVISIBLE.source, "gu"), (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`)
