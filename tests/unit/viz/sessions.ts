// A seated session for the picture's tests: an idle worker connection, with overrides.
import type { SeatedSession } from '../../../src/viz/counter-picture';

export const session = (pid: number, more: Partial<SeatedSession> = {}): SeatedSession => ({
  pid,
  name: `worker-${pid}/1`,
  role: 'worker',
  superuser: false,
  state: 'idle',
  xid: null,
  xactAgeMs: null,
  waiting: null,
  blockedByPid: null,
  emulated: false,
  ...more,
});
