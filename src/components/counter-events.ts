// The counter's event log in the reader's words: only what a reader should notice
// (kills, sweeps, lost results, errors), each as one sentence. Refusals are left to the
// picture's door, which shows each with its FATAL.
import type { SimEvent } from '../sim/events';

/** `event` as a sentence for the demo's "What just happened" list, or null to leave out. */
export function eventSentence(event: SimEvent): string | null {
  const at = `${(event.t / 1000).toFixed(1)} s`;
  switch (event.type) {
    case 'worker-killed':
      return event.jobId === null
        ? `${at}: ${event.worker} was killed while idle.`
        : `${at}: ${event.worker} was killed mid-job (job ${event.jobId}); its connections closed and any open transaction rolled back.`;
    case 'jobs-swept':
      return `${at}: the sweeper put job${event.jobIds.length > 1 ? 's' : ''} ${event.jobIds.join(', ')} back in the queue (heartbeat too old).`;
    case 'record-lost':
      return `${at}: ${event.worker} finished job ${event.jobId}, but the sweeper had already put it back, so its result was not written.`;
    case 'upload-failed':
      return `${at}: ${event.api} could not enqueue an upload: ${event.message} (SQLSTATE ${event.code}).`;
    case 'error':
      return `${at}: ${event.actor} got an error from PostgreSQL: ${event.message} (SQLSTATE ${event.code}).`;
    case 'not-expressible':
      return `${at}: ${event.actor}: not expressible in the browser: ${event.message}`;
    default:
      return null;
  }
}
