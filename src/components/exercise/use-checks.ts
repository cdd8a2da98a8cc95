// An exercise's checks as the page runs them: one at a time, again after a run that asked
// meanwhile, with the reader's latest answer; solved stays solved until a restart, and an
// embedded exercise tells its parent page once.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CheckReport, ReaderAnswer } from '../../exercises/types';
import { tellSolved } from '../DemoShell';

/** What the check panel shows. */
export interface ChecksView {
  report: CheckReport | null;
  checking: boolean;
  /** Reached once in this run: it stays so while the reader goes on. */
  solved: boolean;
  /** A check that could not run at all, in plain words. */
  failure: string | null;
  /** How many checks have completed since the start (or the last reset). */
  completed: number;
}

/**
 * The checks of one exercise: `request` runs them (with a new answer, or the latest),
 * `reset` forgets every result, for a restart. `check` is read at each run, so it may
 * change from render to render (a new run of the exercise).
 */
export function useChecks(
  check: ((answer: ReaderAnswer | null) => Promise<CheckReport>) | null,
  demo: string,
  embed: boolean,
) {
  const [view, setView] = useState<ChecksView>({
    report: null,
    checking: false,
    solved: false,
    failure: null,
    completed: 0,
  });
  const checkRef = useRef(check);
  useEffect(() => {
    checkRef.current = check;
  }, [check]);
  const answerRef = useRef<ReaderAnswer | null>(null);
  const state = useRef({ running: false, again: false, generation: 0, told: false });

  const request = useCallback(
    async (answer?: ReaderAnswer | null) => {
      if (answer !== undefined) answerRef.current = answer;
      const s = state.current;
      if (s.running) {
        s.again = true;
        return;
      }
      s.running = true;
      const generation = s.generation;
      setView((v) => ({ ...v, checking: true }));
      try {
        do {
          s.again = false;
          const run = checkRef.current;
          if (!run) break;
          let report: CheckReport | null = null;
          let failure: string | null = null;
          try {
            report = await run(answerRef.current);
          } catch (error) {
            failure = `The check could not run: ${error instanceof Error ? error.message : String(error)}.`;
          }
          if (generation !== s.generation) return;
          const solvedNow = report?.solved === true;
          if (solvedNow && !s.told) {
            s.told = true;
            if (embed) tellSolved(demo);
          }
          setView((v) => ({
            report: report ?? v.report,
            checking: s.again,
            solved: v.solved || solvedNow,
            failure,
            completed: v.completed + 1,
          }));
        } while (s.again);
      } finally {
        if (generation === s.generation) {
          s.running = false;
          setView((v) => ({ ...v, checking: false }));
        }
      }
    },
    [demo, embed],
  );

  const reset = useCallback(() => {
    const s = state.current;
    s.generation++;
    s.running = false;
    s.again = false;
    s.told = false;
    answerRef.current = null;
    setView({ report: null, checking: false, solved: false, failure: null, completed: 0 });
  }, []);

  return { view, request, reset };
}
