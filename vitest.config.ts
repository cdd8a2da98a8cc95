import { defineConfig } from 'vitest/config';

// Three projects, all run by `npm test`: unit (PGlite in Node), fidelity (the same
// statements on PGlite and on a real PostgreSQL 18) and e2e (the built site in Chromium).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'fidelity',
          include: ['tests/fidelity/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // What a page does next (an island hydrating, a theme applied) has taken over
          // expect.poll's default second on a busy 2-core machine.
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
