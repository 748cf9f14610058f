/**
 * The inbox's connection requests (OAuth, `services/oauth/Consents.ts`): each pending one says who
 * asks ("ChatGPT (chatgpt.com) asks to connect as a client of this bridge"), where the browser is
 * sent back to, the scopes asked, and offers approve and deny. Shown above the pending rows only
 * while OAuth is on and something waits.
 */
import type { Consent } from "../../../services/oauth/Consents.ts"
import { type Html, html } from "../html.ts"

export const CONNECT_PATH = "/inbox/connect/"

export const connectionRequests = (consents: ReadonlyArray<Consent>, csrf: string): Html =>
  consents.length === 0
    ? html``
    : html`<section class="connections" aria-label="Connection requests"><h2>Connection requests</h2>
${consents.map((c) => html`<article class="card" data-connection="${c.id}">
<p><strong>${c.client_name}</strong> (${c.client_host}) asks to connect as a client of this bridge.</p>
<dl><dt>Redirects to</dt><dd>${c.redirect_host}</dd><dt>Scopes asked</dt><dd>${c.scopes.length === 0 ? "(none named)" : c.scopes.join(" ")}</dd>
<dt>Resource</dt><dd>${c.resource}</dd><dt>Client id</dt><dd>${c.client_id}</dd></dl>
<form method="post" action="${CONNECT_PATH}${c.id}" class="actions" aria-label="Decision">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" name="decision" value="approve" class="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>
</form></article>`)}
</section>`
