// Every exercise, in the order the exercises page lists them. Pages, embeds, the teacher's
// docs and the tests read this one list.
import { apiSeat } from './api-seat';
import { findHorizon } from './find-horizon';
import { freeDeadTuples } from './free-dead-tuples';
import { skipWaiting } from './skip-waiting';
import type { Exercise } from './types';

export const exercises: readonly Exercise[] = [freeDeadTuples, skipWaiting, findHorizon, apiSeat];

/** The exercise with this id, or undefined. */
export function exerciseById(id: string): Exercise | undefined {
  return exercises.find((e) => e.id === id);
}

/** What an embedded exercise calls itself in its messages and `data-demo`. */
export function exerciseDemoId(id: string): string {
  return `exercise/${id}`;
}

/** `getStaticPaths` for the routes with one page per exercise. */
export function exerciseStaticPaths() {
  return exercises.map((exercise) => ({ params: { id: exercise.id }, props: { exercise } }));
}
