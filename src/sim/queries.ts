// The SQL the actors send. The claim is the article's, in both shapes. One fact shapes
// the rest: on the in-browser engine a transaction that spans several calls is parked
// (PREPARE TRANSACTION) as soon as another session runs, and can then only COMMIT or
// ROLLBACK; so a transaction is sent as one string, or its calls follow each other with
// no other session in between (the sim awaits each call in turn).
// Values are bound parameters in single autocommit statements. Inside an open transaction
// they are inlined: an extended-protocol statement would leave its portal's snapshot
// pinning the horizon on a server (src/engine/ARCHITECTURE.md, "Protocol matters"), which the hold shape
// must not add to. Inlined values are only text the sim itself made (see `literal`).

/** The article's claim: take the oldest ready job, skipping rows other workers hold. */
export const claimSql =
  "UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1, heartbeat = $2 " +
  "WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_after <= $2 " +
  'ORDER BY run_after FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id, kind, payload';

/** `text` as an SQL string literal; only for text the sim made (names, timestamps). */
export function literal(text: string): string {
  if (!/^[\w:. -]*$/.test(text)) throw new Error(`not a literal the sim makes: ${text}`);
  return `'${text}'`;
}

/** A list of job ids for `IN (…)`. */
function idList(ids: number[]): string {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new Error(`not job ids: ${ids.join()}`);
  return ids.join(', ');
}

/**
 * Hold shape: open the transaction and claim with the article's query, values inlined.
 * The heartbeat is set here, once: the row stays locked by this open transaction, so a
 * heartbeat sent from another of the worker's connections would wait for it.
 */
export function holdClaimSql(worker: string, at: string): string {
  return (
    "BEGIN; UPDATE jobs SET status = 'running', attempts = attempts + 1, " +
    `locked_by = ${literal(worker)}, heartbeat = ${literal(at)} ` +
    "WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND run_after <= " +
    `${literal(at)} ORDER BY run_after FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id, kind, payload`
  );
}

/**
 * Hold shape, recording: the worker commits its claim and at once writes the result in a
 * short transaction, with no other session in between (a parked transaction can only end,
 * so the result cannot be written inside it; the sim does the same on both engines).
 */
export function holdRecordSql(jobId: number, worker: string): string {
  return `UPDATE jobs SET status = 'done' WHERE id = ${idList([jobId])} AND locked_by = ${literal(worker)}`;
}

/** Claim-close shape, recording: done, unless the sweeper has put the job back meanwhile. */
export const recordSql =
  "UPDATE jobs SET status = 'done' WHERE id = $1 AND locked_by = $2 AND status = 'running'";

/** Claim-close shape: the worker says it is still on the job. */
export const heartbeatSql =
  "UPDATE jobs SET heartbeat = $1 WHERE id = $2 AND locked_by = $3 AND status = 'running'";

/** The sweeper: put back running jobs whose heartbeat is older than $1; never waits. */
export const sweepSql =
  "UPDATE jobs SET status = 'queued', locked_by = NULL WHERE id IN (SELECT id FROM jobs " +
  "WHERE status = 'running' AND heartbeat < $1 FOR UPDATE SKIP LOCKED) RETURNING id";

/** The API's upload: the upload row and its job row in one transaction, both or neither. */
export function enqueueSql(upload: string, at: string): string {
  return [
    'BEGIN',
    `INSERT INTO uploads (name, created_at) VALUES (${literal(upload)}, ${literal(at)}) RETURNING id`,
    "INSERT INTO jobs (kind, payload, run_after) VALUES ('convert', " +
      `jsonb_build_object('upload_id', currval('uploads_id_seq')), ${literal(at)}) RETURNING id`,
    'COMMIT',
  ].join('; ');
}

/** Site traffic: bump one counter row of `events` (a dead tuple each time). */
export const bumpSql = 'UPDATE events SET hits = hits + 1, updated_at = $1 WHERE id = $2';

/** The article's query: who holds the horizon back, and by how many XIDs. */
export const horizonSql =
  'SELECT pid, application_name, state, age(COALESCE(backend_xmin, backend_xid)) AS holding_back_by, ' +
  'now() - xact_start AS open_for FROM pg_stat_activity WHERE datname = current_database() ' +
  'AND COALESCE(backend_xmin, backend_xid) IS NOT NULL ORDER BY holding_back_by DESC;';
