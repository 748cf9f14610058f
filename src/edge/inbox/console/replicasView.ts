/**
 * The console's replica markup: the follower of a live run (a cell of the runs table, a fact of the
 * run page) and the replicas with their last heartbeat (below the runs table). What a replica is
 * and who follows what come from the `Replicas` service.
 */
import { followerText, type ReplicaInfo, type RunFollowerInfo } from "../../../services/replicas/Replicas.ts"
import { type Html, html } from "../html.ts"
import { age, plural } from "../views/format.ts"

export interface ReplicasShown {
  readonly clustered: boolean
  readonly replicas: ReadonlyArray<ReplicaInfo>
  /** Followers of the live runs shown, by run id. */
  readonly followers: ReadonlyMap<string, RunFollowerInfo>
}

export const followerCell = (shown: ReplicasShown, runId: string): Html => {
  const f = shown.followers.get(runId)
  if (f === undefined) return html`<td class="replica">–</td>`
  return html`<td class="replica" data-follower="${f.address ?? ""}">${followerText(f, shown.replicas)}</td>`
}

export const followerFact = (shown: ReplicasShown, runId: string): Html => {
  const f = shown.followers.get(runId)
  if (f === undefined) return html``
  return html`<dt>Followed by</dt><dd id="run-follower" data-follower="${f.address ?? ""}">${followerText(f, shown.replicas)}</dd>`
}

const state = (r: ReplicaInfo): Html =>
  r.live
    ? html`<span class="state state-approved">live</span>`
    : r.healthy
      ? html`<span class="state state-denied">heartbeat stale</span>`
      : html`<span class="state state-denied">unhealthy</span>`

export const replicasSection = (shown: ReplicasShown, now: number): Html => html`<section aria-labelledby="replicas-h">
<h2 id="replicas-h">Replicas</h2>
${shown.clustered
  ? ""
  : html`<p class="muted">One replica: this daemon follows every run.</p>`}
${shown.replicas.length === 0
  ? html`<p class="empty">No runner is recorded by the cluster yet.</p>`
  : html`<table id="replicas">
<caption>${plural(shown.replicas.length, "replica")}${shown.clustered ? ", as the cluster records them (runner address, last heartbeat)" : ""}</caption>
<thead><tr><th scope="col">Replica</th><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last heartbeat</th></tr></thead>
<tbody>
${shown.replicas.map((r) => html`<tr data-replica="${r.address}"${r.self ? html` class="self"` : ""}>
<th scope="row"><code>${r.address}</code>${r.self ? html` <span class="muted">(this replica)</span>` : ""}</th>
<td>${r.replicaId ?? "–"}</td>
<td>${state(r)}</td>
<td>${age(new Date(r.lastHeartbeatMs).toISOString(), now)}</td>
</tr>
`)}</tbody>
</table>`}
</section>`
