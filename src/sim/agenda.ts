// What is due when. Items run in order of their moment, and items due at the same ms in
// the order they were scheduled, so a run's order never depends on anything but its past.
import type { Action, AgendaItem, SimState } from './state';

/** Schedules `action` at `atMs`, after everything already due at that ms. */
export function schedule(state: SimState, atMs: number, action: Action): void {
  const item: AgendaItem = { atMs, seq: state.nextSeq++, action };
  const agenda = state.agenda;
  let i = agenda.length;
  while (i > 0 && agenda[i - 1]!.atMs > atMs) i--;
  agenda.splice(i, 0, item);
}

/** Takes the first item due at or before `untilMs`, if there is one. */
export function takeDue(state: SimState, untilMs: number): AgendaItem | undefined {
  const first = state.agenda[0];
  if (!first || first.atMs > untilMs) return undefined;
  return state.agenda.shift();
}
