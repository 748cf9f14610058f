/**
 * The page the person completing a connector's browser step sees (`/oauth/interaction/:uid`):
 * what asks to connect, and that it waits for the operator's decision in the inbox (it reloads
 * itself every few seconds); or, for a one-person box, the admin key to decide on the spot.
 * Everything shown comes from the client: escaped by the `html` tag.
 */
import { documentText, html } from "../inbox/html.ts"
import type { Consent } from "../../services/oauth/Consents.ts"

export const RELOAD_S = 3

export const waitingPage = (c: Consent, notice: string | null) =>
  documentText(html`<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${RELOAD_S}">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Waiting for approval</title></head>
<body><main>
<h1>Waiting for the operator</h1>
<p><strong>${c.client_name}</strong> (${c.client_host}) asks to connect as a client of this bridge.</p>
<dl><dt>Redirects to</dt><dd>${c.redirect_host}</dd><dt>Scopes asked</dt><dd>${c.scopes.length === 0 ? "(none named)" : c.scopes.join(" ")}</dd>
<dt>Resource</dt><dd>${c.resource}</dd></dl>
<p>The request is in the bridge's inbox. This page moves on by itself once it is approved or denied.</p>
${notice === null ? null : html`<p role="alert">${notice}</p>`}
<form method="post"><p>Operator of this bridge? Decide here with the admin key:</p>
<label>Admin key <input type="password" name="key" autocomplete="off" required></label>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></form>
</main></body></html>`)

export const endedPage = (text: string) =>
  documentText(html`<html lang="en"><head><meta charset="utf-8"><title>Not connected</title></head>
<body><main><h1>Not connected</h1><p>${text}</p></main></body></html>`)
