/**
 * A queued run's place in its profile's queue (the run view's `queue_position`), in the order the
 * queue admits (services/runs/admission.ts: round-robin by client). The queue admits in rounds over
 * clients, so the k-th queued run of its client comes after every other client's first k-1 runs,
 * and after the k-th runs that have waited longer than it. 1 is next; null: not in the queue.
 * `queued` is the profile's queue, oldest first.
 */
export const queuePlace = (queued: ReadonlyArray<{ readonly runId: string; readonly client: string }>, runId: string): number | null => {
  const seen = new Map<string, number>()
  // Each run's round: its rank among its client's queued runs.
  const rounds = queued.map((q) => {
    const k = (seen.get(q.client) ?? 0) + 1
    seen.set(q.client, k)
    return k
  })
  const index = queued.findIndex((q) => q.runId === runId)
  if (index < 0) return null
  const mine = rounds[index]!
  return rounds.filter((k, i) => k < mine || (k === mine && i < index)).length + 1
}
