/**
 * The page shell: a skip link, the header (navigation with the pending count, sign-out), the live
 * region the script announces changes in, and `<main>`, whose `data-version` names the pending rows
 * the page was rendered from (the script compares it with the event stream's).
 */
import { type Html, html } from "../html.ts"

export type Section = "pending" | "history" | "row" | "signin" | "error" | "runs" | "clients"

export interface SignedInChrome {
  readonly csrf: string
  readonly pendingCount: number
  /** Fingerprint of the pending rows at render time. */
  readonly version: string
}

export interface PageSpec {
  readonly title: string
  readonly section: Section
  /** Null on the sign-in page and for a signed-out visitor. */
  readonly signedIn: SignedInChrome | null
  readonly content: Html
  /** The event stream this page's `data-version` follows (default: the inbox's, `/inbox/events`); null: the page never reloads itself. */
  readonly feed?: string | null
}

const navLink = (href: string, label: Html | string, current: boolean) =>
  html`<li><a href="${href}"${current ? html` aria-current="page"` : ""}>${label}</a></li>`

const header = (spec: PageSpec): Html => {
  const s = spec.signedIn
  if (s === null) return html`<header class="site"><p class="brand">agent-bridge inbox</p></header>`
  return html`<header class="site">
  <p class="brand">agent-bridge inbox</p>
  <nav aria-label="Inbox">
    <ul>
      ${navLink("/inbox", html`Pending (<span id="pending-count">${s.pendingCount}</span>)`, spec.section === "pending")}
      ${navLink("/inbox/history", "History", spec.section === "history")}
      ${navLink("/inbox/runs", "Runs", spec.section === "runs")}
      ${navLink("/inbox/clients", "Clients", spec.section === "clients")}
    </ul>
  </nav>
  <form method="post" action="/inbox/signout">
    <input type="hidden" name="csrf" value="${s.csrf}">
    <button type="submit" class="link">Sign out</button>
  </form>
</header>`
}

export const page = (spec: PageSpec): Html => html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${spec.title} · agent-bridge inbox</title>
<link rel="icon" href="/inbox/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/inbox/static/inbox.css">
${spec.signedIn === null ? "" : html`<script src="/inbox/static/inbox.js" defer></script>`}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(spec)}
<div id="live" class="sr-only" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1"${spec.signedIn === null || spec.feed === null ? "" : html` data-version="${spec.signedIn.version}"${spec.feed === undefined ? "" : html` data-feed="${spec.feed}"`}`}>
${spec.content}
</main>
</body>
</html>`
