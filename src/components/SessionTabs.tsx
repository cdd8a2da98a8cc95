import { useRef, type KeyboardEvent } from 'react';
import type { SessionInfo } from '../engine/session-info';

/** One tab of the console: a session of its own, under a label the reader may change. */
export interface SessionTab {
  /** Stable for the tab's life; React key and the base of its element ids. */
  key: number;
  /** What the tab shows; starts as the session's application_name. */
  label: string;
  /** Given to the engine when the session opens; it cannot change afterwards. */
  applicationName: string;
}

/** The ids tying a tab to its panel (WAI-ARIA tabs pattern). */
export function tabIds(idBase: string, key: number): { tab: string; panel: string } {
  return { tab: `${idBase}-tab-${key}`, panel: `${idBase}-panel-${key}` };
}

/**
 * The states every page draws alike, each with its colours in site.css (`data-state` on a
 * `.state-badge`); the words beside a badge always say the state as well.
 */
export type StateKind =
  | 'idle'
  | 'idle-in-transaction'
  | 'active'
  | 'waiting'
  | 'refused'
  | 'emulated'
  | 'recorded'
  | 'modelled';

/** Which state a session is drawn in, from what PostgreSQL reports of it. */
export function sessionStateKind(info: SessionInfo | undefined): StateKind | undefined {
  if (!info) return undefined;
  if (info.waitEventType) return 'waiting';
  if (info.emulated) return 'emulated';
  if (info.state === 'active') return 'active';
  if (info.state === 'idle') return 'idle';
  return 'idle-in-transaction';
}

/**
 * A session's state as words, never colour alone: pg_stat_activity's `state`, the XID of
 * its parked transaction, and what it waits on, e.g.
 * `idle in transaction · XID 754` or `active · waiting: Lock/transactionid on pid 3`.
 */
export function describeSession(info: SessionInfo | undefined): string {
  if (!info) return 'connecting…';
  const parts: string[] = [info.state];
  if (info.xid) {
    parts.push(`XID ${info.xid}${info.emulated ? ' (emulated: snapshot held)' : ''}`);
  }
  if (info.replayedFrom) parts.push(`replayed to go on (modelled; was XID ${info.replayedFrom})`);
  if (info.waitEventType) {
    const what = info.waitEvent ? `${info.waitEventType}/${info.waitEvent}` : info.waitEventType;
    parts.push(
      `waiting: ${what}${info.blockedByPid === null ? '' : ` on pid ${info.blockedByPid}`}` +
        (info.watchdog ? ' (found by the watchdog)' : ''),
    );
  }
  return parts.join(' · ');
}

interface SessionTabsProps {
  idBase: string;
  tabs: SessionTab[];
  activeKey: number;
  /** Each tab's badge: its words and the state it is drawn in, by tab key. */
  badges: Map<number, { text: string; state: StateKind | undefined }>;
  onSelect: (key: number) => void;
  onNew: () => void;
  /** Disables New session while the engine restarts. */
  busy: boolean;
}

/**
 * The console's session tabs: a WAI-ARIA tab list with manual activation (the arrow keys,
 * Home and End move focus; Enter or Space selects) and a New session button after it.
 */
export function SessionTabs({
  idBase,
  tabs,
  activeKey,
  badges,
  onSelect,
  onNew,
  busy,
}: SessionTabsProps) {
  const listRef = useRef<HTMLDivElement>(null);

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const buttons = [
      ...(listRef.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]') ?? []),
    ];
    const at = buttons.indexOf(event.currentTarget);
    let next: number;
    switch (event.key) {
      case 'ArrowRight':
      case 'ArrowDown':
        next = (at + 1) % buttons.length;
        break;
      case 'ArrowLeft':
      case 'ArrowUp':
        next = (at - 1 + buttons.length) % buttons.length;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = buttons.length - 1;
        break;
      default:
        return;
    }
    event.preventDefault();
    buttons[next]?.focus();
  };

  return (
    <div className="session-tabs">
      <div ref={listRef} role="tablist" aria-label="Sessions" className="session-tablist">
        {tabs.map((tab) => {
          const ids = tabIds(idBase, tab.key);
          const selected = tab.key === activeKey;
          return (
            <button
              key={tab.key}
              type="button"
              role="tab"
              id={ids.tab}
              aria-controls={ids.panel}
              aria-selected={selected}
              tabIndex={selected ? 0 : -1}
              className="session-tab"
              onClick={() => onSelect(tab.key)}
              onKeyDown={onKeyDown}
            >
              <span className="session-tab-label">{tab.label}</span>{' '}
              <span className="session-badge state-badge" data-state={badges.get(tab.key)?.state}>
                {badges.get(tab.key)?.text ?? 'connecting…'}
              </span>
            </button>
          );
        })}
      </div>
      <button
        type="button"
        className="session-new"
        aria-disabled={busy}
        onClick={() => {
          if (!busy) onNew();
        }}
      >
        New session
      </button>
    </div>
  );
}
