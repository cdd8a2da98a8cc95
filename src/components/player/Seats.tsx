// The ledger strip: the run's sessions as seats, their open transactions as pages.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionInfo } from '../../engine/session-info';
import type { Scenario } from '../../scenario/schema';
import type { SeatedSession } from '../../viz/counter-picture';
import { drawLedgerStrip, type LedgerStrip } from '../../viz/ledger-strip';
import type { RunView } from './words';

export function Seats({
  scenario,
  run,
  infos,
  pids,
}: {
  scenario: Scenario;
  run: RunView;
  infos: SessionInfo[];
  pids: number[];
}) {
  const svgRef = useRef<SVGSVGElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!wrap || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(Math.max(160, wrap.clientWidth)));
    observer.observe(wrap);
    return () => observer.disconnect();
  }, []);
  const strip = useMemo<LedgerStrip>(() => {
    const seats: SeatedSession[] = scenario.sessions.flatMap((s, i) => {
      const info = infos.find((x) => x.pid === pids[i]);
      if (!info) return [];
      return [
        {
          pid: info.pid,
          name: s.name,
          role: 'other',
          superuser: info.role === 'postgres',
          state: info.state,
          xid: info.xid,
          xactAgeMs: info.xactStart ? 0 : null,
          waiting: info.waitEventType ? `${info.waitEventType}/${info.waitEvent ?? ''}` : null,
          blockedByPid: info.blockedByPid,
          emulated: info.emulated,
        },
      ];
    });
    const cutoff = lastCutoff(run);
    return {
      seats,
      horizon: cutoff
        ? { cutoff, holderPid: seats.find((s) => s.xid === cutoff)?.pid ?? null }
        : null,
    };
  }, [scenario, infos, pids, run]);
  useEffect(() => {
    if (svgRef.current) drawLedgerStrip(svgRef.current, strip, { width });
  }, [strip, width]);
  return (
    <figure className="player-seats" ref={wrapRef}>
      <svg ref={svgRef} />
      <figcaption>
        Seats are connections; a ledger page is an open transaction, with the XID it holds. Live
        from the session layer. Modelled: these sessions share PGlite’s one backend, and a snapshot
        held without an XID (a page marked “snapshot ~N”) is stood in for by a parked transaction
        with XID N.
      </figcaption>
    </figure>
  );
}

/** The last removable cutoff VACUUM printed in this run. */
function lastCutoff(run: RunView): string | null {
  for (let i = run.reports.length - 1; i >= 0; i--) {
    const r = run.reports[i];
    if (r?.status !== 'completed') continue;
    for (const n of r.output.notices) {
      const m = /removable cutoff: (\d+)/.exec(n.message);
      if (m) return m[1]!;
    }
  }
  return null;
}
