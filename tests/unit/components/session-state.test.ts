// The state a session's badge is drawn in (site.css's state colours), from what PostgreSQL
// reports of it: a wait outranks the rest, then a stood-in snapshot, then pg_stat_activity's
// own state.
import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../../src/engine/session-info';
import { describeSession, sessionStateKind } from '../../../src/components/SessionTabs';

const info = (more: Partial<SessionInfo>): SessionInfo => ({
  id: 1,
  pid: 101,
  applicationName: 'worker-07',
  role: 'app',
  state: 'idle',
  xactStart: null,
  query: '',
  waitEventType: null,
  waitEvent: null,
  blockedByPid: null,
  xid: null,
  emulated: false,
  watchdog: false,
  replayedFrom: null,
  ...more,
});

describe('sessionStateKind', () => {
  it('draws each pg_stat_activity state in its own colours', () => {
    expect(sessionStateKind(info({ state: 'idle' }))).toBe('idle');
    expect(sessionStateKind(info({ state: 'active' }))).toBe('active');
    expect(sessionStateKind(info({ state: 'idle in transaction', xid: '754' }))).toBe(
      'idle-in-transaction',
    );
    expect(sessionStateKind(info({ state: 'idle in transaction (aborted)' }))).toBe(
      'idle-in-transaction',
    );
    expect(sessionStateKind(undefined)).toBeUndefined();
  });

  it('draws a waiting statement as waiting, and a stood-in snapshot as emulated', () => {
    const waiting = info({ state: 'active', waitEventType: 'Lock', waitEvent: 'transactionid' });
    expect(sessionStateKind(waiting)).toBe('waiting');
    expect(describeSession(waiting)).toContain('waiting: Lock/transactionid');
    const snapshot = info({ state: 'idle in transaction', xid: '760', emulated: true });
    expect(sessionStateKind(snapshot)).toBe('emulated');
    expect(describeSession(snapshot)).toContain('emulated: snapshot held');
  });

  it('says, as modelled, that a transaction went on by being replayed under a new XID', () => {
    const replayed = info({ state: 'idle in transaction', xid: '783', replayedFrom: '781' });
    expect(describeSession(replayed)).toBe(
      'idle in transaction · XID 783 · replayed to go on (modelled; was XID 781)',
    );
  });
});
