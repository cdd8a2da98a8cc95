// An exercise (`/exercises/<id>/`, `/embed/exercise/<id>/`): a starting state on the
// reader's own PostgreSQL, a goal, checks that ask PostgreSQL whether it is reached after
// every run, hints and the solution on request. Definitions live in src/exercises/.
import { exerciseById, exerciseDemoId } from '../exercises';
import { DemoShell } from './DemoShell';
import { SessionsBody } from './exercise/SessionsBody';
import { SlotsBody } from './exercise/SlotsBody';
import '../styles/exercises.css';
import '../styles/slots.css';

export interface ExerciseProps {
  /** The exercise's id, as in src/exercises/index.ts. */
  id: string;
  embed?: boolean;
  /** Shows the exercise's title as a heading (not on its own page, which has one). */
  heading?: boolean;
}

export function Exercise({ id, embed = false, heading = false }: ExerciseProps) {
  const exercise = exerciseById(id);
  if (!exercise) return <p className="demo-error">There is no exercise “{id}”.</p>;
  return (
    <DemoShell
      demo={exerciseDemoId(id)}
      embed={embed}
      intro={
        <header className="exercise-head">
          {heading ? <h2 className="exercise-title">{exercise.title}</h2> : null}
          <p className="exercise-goal">
            <strong>Goal:</strong> {exercise.goal}
          </p>
        </header>
      }
    >
      {(context) => (
        <div className="exercise">
          {exercise.kind === 'sessions' ? (
            <SessionsBody
              exercise={exercise}
              context={context}
              embed={embed}
              level={heading ? 3 : 2}
            />
          ) : (
            <SlotsBody
              exercise={exercise}
              context={context}
              embed={embed}
              level={heading ? 3 : 2}
            />
          )}
        </div>
      )}
    </DemoShell>
  );
}

export default Exercise;
