// The messages an embedded demo posts to the page around it, typed once: the demos post
// them through `postToParent`, and the teacher's docs print the examples below. Each
// holds only its type, the demo's id and a few numbers, so any page may read them (they
// are posted to `*`); an embedding page checks `event.source` to know which frame spoke.

/** The demo's height changed: the page sets its iframe's height to it. */
export interface ResizeMessage {
  type: 'seat-ledger:resize';
  demo: string;
  /** The demo's height in CSS pixels, a whole number. */
  height: number;
}

/** The demo can be used: its PostgreSQL has started and it shows its first state. */
export interface ReadyMessage {
  type: 'seat-ledger:ready';
  demo: string;
}

/** A scenario demo's position changed: `step` of `of` steps have been sent. */
export interface StepMessage {
  type: 'seat-ledger:step';
  demo: string;
  step: number;
  of: number;
}

/**
 * Solved: every step of a scenario demo has run and every claim it makes held on the
 * reader's PostgreSQL, or an exercise's checks all held (`demo` is `exercise/<id>`).
 */
export interface SolvedMessage {
  type: 'seat-ledger:solved';
  demo: string;
}

export type EmbedMessage = ResizeMessage | ReadyMessage | StepMessage | SolvedMessage;

/** Each message with an example and when it is sent, for the teacher's docs. */
export const embedMessageDocs: readonly { example: EmbedMessage; when: string }[] = [
  {
    example: { type: 'seat-ledger:resize', demo: 'counter', height: 1184 },
    when: 'whenever the demo’s height changes, and once as it opens',
  },
  {
    example: { type: 'seat-ledger:ready', demo: 'counter' },
    when: 'once, when PostgreSQL has started and the demo can be used',
  },
  {
    example: { type: 'seat-ledger:step', demo: 'skip-locked', step: 3, of: 9 },
    when: 'scenario demos: after each step, after Back, and when a run starts (step 0)',
  },
  {
    example: { type: 'seat-ledger:solved', demo: 'skip-locked' },
    when: 'scenario demos: when every step has run and every claim held',
  },
  {
    example: { type: 'seat-ledger:solved', demo: 'exercise/free-dead-tuples' },
    when: 'exercises: once, when every check of the exercise holds on the reader’s PostgreSQL',
  },
];

/** Posts `message` to the page this demo is embedded in; nothing when it is not embedded. */
export function postToParent(message: EmbedMessage): void {
  if (typeof window === 'undefined' || window.parent === window) return;
  window.parent.postMessage(message, '*');
}
