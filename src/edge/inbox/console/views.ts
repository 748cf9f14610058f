/**
 * The console's pages (markup only): the runs list with its filters, one run (facts, the stop
 * button, the output window, the events page), the clients list with revoke / rotate, and the page
 * that shows a rotated key once. Everything shown of a run already went through the Redactor.
 */
import type { RunEventsPage, RunStatus, RunView } from "../../../domain/runs/view.ts"
import { RunStatus as RunStatusSchema } from "../../../domain/runs/view.ts"
import { isTerminal } from "../../../domain/runs/view.ts"
import type { ClientSummary, RunFilter, RunQueue, RunSummary } from "../../../services/console/queries.ts"
import { iso } from "../../../services/runs/views.ts"
import { type Html, html } from "../html.ts"
import { age, plural, visible, when } from "../views/format.ts"
import { page, type SignedInChrome } from "../views/layout.ts"
import { followerCell, followerFact, replicasSection, type ReplicasShown } from "./replicasView.ts"

export const CONSOLE_FEED = "/inbox/console/events"

export const runHref = (id: string) => `/inbox/runs/${encodeURIComponent(id)}`

const statusLabel = (s: RunStatus | string): Html => html`<span class="status status-${s}">${s.replace(/_/g, " ")}</span>`

const stopNote = (stop: string | null): Html | string =>
  stop === null
    ? ""
    : stop === "pending"
      ? html` <span class="muted">(operator stop requested)</span>`
      : html` <span class="muted">(operator stop: ${stop === "stopping" ? "carried out" : stop.replace(/_/g, " ")})</span>`

const tokens = (n: number | null) => (n === null ? "–" : n.toLocaleString("en-US"))

const select = (name: string, label: string, choices: ReadonlyArray<string>, current: string | undefined): Html => html`<label>${label}
<select name="${name}" id="filter-${name}">
<option value=""${current === undefined ? html` selected` : ""}>any</option>
${choices.map((c) => html`<option value="${c}"${c === current ? html` selected` : ""}>${c}</option>`)}
</select></label>`

export interface RunsPageSpec {
  readonly chrome: SignedInChrome
  readonly runs: ReadonlyArray<RunSummary>
  readonly filter: RunFilter
  readonly choices: { readonly clients: ReadonlyArray<string>; readonly agents: ReadonlyArray<string> }
  readonly now: number
  /** The replicas, and the follower of each live run listed. */
  readonly replicas: ReplicasShown
  /** The queue for Hermes's capacity (absent: not read). */
  readonly queue?: RunQueue
}

/** Runs waiting for Hermes's capacity, per profile (nothing when none waits). */
const queueSection = (queue: RunQueue | undefined): Html | string =>
  queue === undefined || queue.depths.length === 0
    ? ""
    : html`<section aria-labelledby="queue-h" id="queue">
<h2 id="queue-h">Waiting for Hermes's capacity</h2>
<ul>${queue.depths.map((d) => html`<li data-profile="${d.profile}">profile <code>${d.profile}</code>: ${plural(d.n, "run")} queued</li>`)}</ul>
</section>`

const queuePlaceNote = (queue: RunQueue | undefined, runId: string): Html | string => {
  const place = queue?.places.get(runId)
  return place === undefined ? "" : html` <span class="muted queue-place">(place ${place})</span>`
}

export const runsPage = ({ chrome, runs, filter, choices, now, replicas, queue }: RunsPageSpec): Html =>
  page({
    title: "Runs",
    section: "runs",
    signedIn: chrome,
    feed: CONSOLE_FEED,
    content: html`<h1>Runs</h1>
<form class="filters" method="get" action="/inbox/runs" role="search" aria-label="Filter runs">
${select("client", "Client", choices.clients, filter.client)}
${select("status", "Status", RunStatusSchema.literals, filter.status)}
${select("agent", "Agent", choices.agents, filter.agent)}
<button type="submit">Filter</button>
${filter.client !== undefined || filter.status !== undefined || filter.agent !== undefined ? html`<a href="/inbox/runs">Clear filters</a>` : ""}
</form>
${queueSection(queue)}
${runs.length === 0
  ? html`<p class="empty">No run matches. Runs that remote agents start appear here as they start.</p>`
  : html`<table id="runs">
<caption>${plural(runs.length, "run")}, live ones first, then the newest</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Client</th><th scope="col">Agent</th><th scope="col">Face</th><th scope="col">Status</th><th scope="col">Followed by</th><th scope="col">Started</th><th scope="col">Last event</th><th scope="col" class="num">Tokens</th></tr></thead>
<tbody>
${runs.map((r) => html`<tr data-run="${r.runId}">
<td><a href="${runHref(r.runId)}"><code>${r.runId}</code></a></td>
<td>${r.client}</td>
<td>${r.agent}${r.profile !== "default" ? html` <span class="muted">(${r.profile})</span>` : ""}</td>
<td class="face">${r.face === "a2a" ? "A2A" : "MCP"}</td>
<td>${statusLabel(r.status)}${queuePlaceNote(queue, r.runId)}${stopNote(r.operatorStop)}</td>
${followerCell(replicas, r.runId)}
<td>${age(iso(r.createdAt), now)}</td>
<td>${r.lastEventType === null ? "–" : html`<code>${r.lastEventType}</code> ${r.lastEventAt === null ? "" : age(iso(r.lastEventAt), now)}`}</td>
<td class="num">${tokens(r.tokens)}</td>
</tr>
`)}</tbody>
</table>`}
${replicasSection(replicas, now)}`
  })

export interface RunPageSpec {
  readonly chrome: SignedInChrome
  readonly view: RunView
  readonly summary: RunSummary
  readonly events: RunEventsPage
  readonly since: number
  readonly pageSize: number
  readonly now: number
  readonly notice: string | null
  /** The run's follower while it is live. */
  readonly replicas: ReplicasShown
}

const outputSection = (view: RunView): Html => {
  const shownBytes = view.output === null ? 0 : Buffer.byteLength(view.output, "utf8")
  const pager = html`<nav class="pager" aria-label="Output windows">
${view.output_offset > 0 ? html`<a href="${runHref(view.run_id)}?offset=0">First window</a>` : ""}
${view.next_offset === null ? "" : html`<a href="${runHref(view.run_id)}?offset=${view.next_offset}" id="next-window">Next window</a>`}
</nav>`
  return html`<section aria-labelledby="output-h">
<h2 id="output-h">Output</h2>
${view.output === null
  ? html`<p class="empty">No output yet.</p>`
  : html`<p class="muted">Bytes ${view.output_offset}–${view.output_offset + shownBytes} of ${view.output_total}</p>
<pre id="output" aria-label="Output window">${visible(view.output)}</pre>`}
${pager}
</section>`
}

const eventsSection = (view: RunView, events: RunEventsPage, since: number, pageSize: number): Html => {
  const earlier = since > 0 ? Math.max(0, since - pageSize) : null
  const later = since + pageSize < events.last_seq ? since + pageSize : null
  const href = (s: number) => `${runHref(view.run_id)}?since=${s}#events-h`
  return html`<section aria-labelledby="events-h">
<h2 id="events-h">Events</h2>
${events.events.length === 0
  ? html`<p class="empty">No events after #${since}.</p>`
  : html`<table id="events">
<caption>Events ${events.events[0]?.seq ?? 0}–${events.events.at(-1)?.seq ?? 0} of ${events.last_seq}</caption>
<thead><tr><th scope="col" class="num">#</th><th scope="col">Type</th><th scope="col">At</th><th scope="col">Data</th></tr></thead>
<tbody>
${events.events.map((e) => html`<tr data-seq="${e.seq}">
<td class="num">${e.seq}</td>
<td><code>${e.type}</code></td>
<td>${when(e.at)}</td>
<td><code class="hash">${visible(JSON.stringify(e.data))}</code></td>
</tr>
`)}</tbody>
</table>`}
<nav class="pager" aria-label="Event pages">
${earlier === null ? "" : html`<a href="${href(earlier)}" id="earlier-events">Earlier events</a>`}
${later === null ? "" : html`<a href="${href(later)}" id="later-events">Later events</a>`}
</nav>
</section>`
}

export const runPage = ({ chrome, view, summary, events, since, pageSize, now, notice, replicas }: RunPageSpec): Html =>
  page({
    title: `Run ${view.run_id}`,
    section: "runs",
    signedIn: chrome,
    feed: CONSOLE_FEED,
    content: html`<p><a href="/inbox/runs">← All runs</a></p>
<h1>Run <code>${view.run_id}</code></h1>
${notice === null ? "" : html`<p class="notice" role="status">${notice}</p>`}
<dl class="facts">
<dt>Status</dt><dd id="run-status">${statusLabel(view.status)}${stopNote(summary.operatorStop)}</dd>
${view.queue_position === undefined ? "" : html`<dt>Queue</dt><dd id="run-queue">place ${view.queue_position} in the queue for ${view.agent}'s capacity</dd>`}
<dt>Client</dt><dd>${view.client}</dd>
<dt>Agent</dt><dd>${view.agent} <span class="muted">(profile ${view.profile})</span></dd>
${followerFact(replicas, view.run_id)}
<dt>Started by</dt><dd id="run-face">${summary.face === "a2a" ? "an A2A client" : "an MCP client"}</dd>
<dt>Started</dt><dd>${age(view.created_at, now)} <span class="muted">(${when(view.created_at)})</span></dd>
<dt>Last change</dt><dd>${age(view.updated_at, now)}</dd>
<dt>Tokens</dt><dd>${tokens(summary.tokens)}${view.usage === null ? "" : html` <span class="muted">${JSON.stringify(view.usage)}</span>`}</dd>
<dt>Input</dt><dd>${visible(view.input_preview)}</dd>
${view.error === null ? "" : html`<dt>Error</dt><dd>${visible(view.error)}</dd>`}
${view.pending === null || view.pending.kind === "approval" ? "" : html`<dt>Asks</dt><dd>${visible(view.pending.question)}</dd>`}
${view.awaiting_approval === undefined ? "" : html`<dt>Awaiting approval</dt><dd><a href="/inbox/rows/${encodeURIComponent(view.awaiting_approval.approval_id)}">${visible(view.awaiting_approval.command)}</a></dd>`}
</dl>
${isTerminal(view.status) || view.status === "stopping"
  ? ""
  : html`<form method="post" action="${runHref(view.run_id)}/stop">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<button type="submit" class="danger" id="stop-run">Stop this run</button>
<span class="muted">Recorded as the operator's stop; the client sees the run end cancelled.</span>
</form>`}
${outputSection(view)}
${eventsSection(view, events, since, pageSize)}`
  })

export const clientsPage = (chrome: SignedInChrome, clients: ReadonlyArray<ClientSummary>, now: number, notice: string | null): Html =>
  page({
    title: "Clients",
    section: "clients",
    signedIn: chrome,
    feed: CONSOLE_FEED,
    content: html`<h1>Clients</h1>
${notice === null ? "" : html`<p class="notice" role="status">${notice}</p>`}
${clients.length === 0
  ? html`<p class="empty">No client yet. Admit one with <code>agent-bridge client add NAME</code>.</p>`
  : html`<table id="clients">
<caption>${plural(clients.length, "client")}; runs and tokens over the last 24 hours</caption>
<thead><tr><th scope="col">Client</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col" class="num">Live runs</th><th scope="col" class="num">Runs (24 h)</th><th scope="col" class="num">Tokens (24 h)</th><th scope="col">Key</th></tr></thead>
<tbody>
${clients.map((c) => html`<tr data-client="${c.name}">
<th scope="row">${c.name}</th>
<td>${c.scopes.join(", ")}</td>
<td>${age(c.createdAt, now)}</td>
<td>${c.lastUsedAt === null ? "never" : age(c.lastUsedAt, now)}</td>
<td class="num"><a href="/inbox/runs?client=${encodeURIComponent(c.name)}">${c.liveRuns}</a></td>
<td class="num">${c.runs24h}</td>
<td class="num">${c.tokens24h.toLocaleString("en-US")}</td>
<td>${c.revokedAt === null ? html`<span class="state state-approved">active</span>` : html`<span class="state state-denied">revoked</span> ${age(c.revokedAt, now)}`}
${c.oauthHost === null ? "" : html`<span class="muted">OAuth from ${c.oauthHost}</span>`}
<form class="inline" method="post" action="/inbox/clients/${encodeURIComponent(c.name)}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
${c.oauthHost === null ? html`<button type="submit" name="action" value="rotate" id="rotate-${c.name}">Rotate<span class="sr-only"> the key of ${c.name}</span></button>` : ""}
${c.revokedAt === null ? html`<button type="submit" name="action" value="revoke" class="danger" id="revoke-${c.name}">Revoke<span class="sr-only"> ${c.name}</span></button>` : ""}
</form></td>
</tr>
`)}</tbody>
</table>`}`
  })

/** After a rotation: the new key, shown this once (the page is never cached). */
export const newKeyPage = (chrome: SignedInChrome, name: string, key: string): Html =>
  page({
    title: `New key for ${name}`,
    section: "clients",
    signedIn: chrome,
    // A live update would fetch the page again and lose the key, which is shown only here.
    feed: null,
    content: html`<h1>New key for ${name}</h1>
<p class="notice" role="status">The old key no longer works. This is the only time the new one is shown: store it now.</p>
<p><code class="key" id="new-key">${key}</code></p>
<p class="muted">Put it where the client keeps its bridge key (the <code>Authorization: Bearer …</code> header of its MCP server entry); <code>agent-bridge client rotate ${name}</code> prints the same set-up snippets.</p>
<p><a href="/inbox/clients">Back to clients</a></p>`
  })
