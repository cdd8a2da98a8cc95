// A slots exercise on one engine: the deployment the reader set asks for its seats in
// start-up order (the slots demo's run), and the checks ask pg_stat_activity who got one,
// from a superuser session of their own that is open only while they run.
import type { Engine } from '../engine/types';
import { SlotsRun, startupOrder, type AskOutcome, type SlotsConfig } from '../sim/slots';
import { runChecks, type CheckOptions } from './checks';
import type { CheckReport, SlotsExercise } from './types';

/** Where the check session says it comes from, in pg_stat_activity. */
export const checkApplicationName = 'exercise check';

/** Asks for every seat of `config`, in start-up order; `onOutcome` hears each answer. */
export async function startDeployment(
  engine: Engine,
  config: SlotsConfig,
  onOutcome?: (outcome: AskOutcome) => void,
): Promise<SlotsRun> {
  const run = new SlotsRun(engine);
  try {
    await run.askAll(startupOrder(config), onOutcome);
  } catch (error) {
    await run.close();
    throw error;
  }
  return run;
}

/** Runs the exercise's checks on a superuser session that closes again afterwards. */
export async function checkDeployment(
  engine: Engine,
  exercise: SlotsExercise,
  options: CheckOptions = {},
): Promise<CheckReport> {
  // A superuser may take a seat reserved for superusers, so the check finds one when
  // the deployment has taken every seat the application's role may have.
  const session = await engine.openSession({
    applicationName: checkApplicationName,
    role: 'superuser',
  });
  try {
    return await runChecks(session, exercise.checks, { pids: {}, answer: null }, options);
  } finally {
    await session.close();
  }
}

/** `config` with the exercise's fixed settings put back to where it starts. */
export function keepFixed(exercise: SlotsExercise, config: SlotsConfig): SlotsConfig {
  const kept = { ...config };
  for (const key of exercise.fixed) kept[key] = exercise.start[key];
  return kept;
}
