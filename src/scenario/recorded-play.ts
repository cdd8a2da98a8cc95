// Plays a recording of PostgreSQL 18 step by step, the way ScenarioPlay plays a live run,
// so the player shows both alike (and labels which is which).
import { keptValues, type Kept } from './claims';
import { planSteps, pressFrom, type PlannedStep, type Selection } from './plan';
import type { Playback, PlayOptions, StepReport } from './play';
import type { RecordedEvent } from './recording';
import type { Scenario } from './schema';

/** A recorded run, replayed one step per `next`. */
export class RecordedPlay implements Playback {
  readonly steps: PlannedStep[];
  position = 0;
  readonly kept: Kept = {};
  private readonly events: RecordedEvent[];
  private readonly options: PlayOptions;

  constructor(
    scenario: Scenario,
    selection: Selection,
    events: RecordedEvent[],
    options: PlayOptions = {},
  ) {
    this.steps = planSteps(scenario, selection);
    this.events = events;
    this.options = options;
  }

  get done(): boolean {
    return this.position >= this.steps.length;
  }

  async next(): Promise<void> {
    if (this.done) return;
    for (const step of pressFrom(this.steps, this.position)) {
      if (step.afterMs > 0 && this.options.sleep) await this.options.sleep(step.afterMs, step);
      this.position++;
      for (const event of this.events.filter((e) => e.sent === this.position)) {
        const planned = this.steps[event.step]!;
        let report: StepReport;
        if (event.status === 'completed' && event.output) {
          Object.assign(this.kept, keptValues(planned.keep, event.output));
          report = {
            step: planned,
            status: 'completed',
            output: event.output,
            claims: event.claims ?? [],
          };
        } else if (event.status === 'modelled') report = { step: planned, status: 'modelled' };
        else report = { step: planned, status: 'waiting' };
        this.options.onReport?.(report);
      }
    }
  }

  async close(): Promise<void> {}
}
