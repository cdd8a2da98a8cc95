// @ts-check
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * A relative import that climbs to `src/` and enters one of `folders` (each a path
 * below `src/`, e.g. `engine/pglite`), with or without a file extension.
 */
const into = (/** @type {string[]} */ folders) => `^(\\.\\./)+(${folders.join('|')})(/|\\.tsx?$|$)`;

/** Rules that keep the layers one-way (src/engine/ARCHITECTURE.md, "Layers"). */
const layer = (
  /** @type {string} */ folder,
  /** @type {string[]} */ forbidden,
  /** @type {string[]} */ packages,
  /** @type {string} */ why,
) => ({
  files: [`src/${folder}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: into(forbidden), message: why },
          ...(packages.length ? [{ group: packages, message: why }] : []),
        ],
      },
    ],
  },
});

const views = ['react', 'react-dom', 'react/*', 'react-dom/*', '@codemirror/*', 'd3-*'];
const drivers = ['@electric-sql/*', 'pg'];

export default defineConfig(
  globalIgnores([
    'dist/',
    '.astro/',
    'node_modules/',
    'public/engine/',
    'bench/.out/',
    '.scratch/',
  ]),
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
  },
  {
    // Plain JavaScript here is configuration run by Node.
    files: ['**/*.{js,mjs}'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  layer(
    'engine',
    ['sim', 'spec', 'viz', 'components', 'pages'],
    [],
    'The engine is the bottom layer: it imports nothing above it.',
  ),
  layer(
    'sim',
    ['engine/pglite', 'engine/server', 'engine/page', 'spec', 'viz', 'components', 'pages'],
    [...views, ...drivers],
    'The simulation is pure and talks only to the Engine interface (src/engine/types.ts).',
  ),
  layer(
    'spec',
    ['engine/pglite', 'engine/server', 'engine/page', 'sim', 'viz', 'components', 'pages'],
    [...views, ...drivers],
    'The spec runner works over any engine through the Engine interface (src/engine/types.ts).',
  ),
  layer(
    'exercises',
    ['engine/pglite', 'engine/server', 'engine/page', 'viz', 'components', 'pages'],
    [...views, ...drivers],
    'Exercises are data and checks over the Engine interface; pages and components read them.',
  ),
  layer(
    'viz',
    ['engine', 'sim', 'spec', 'components', 'pages'],
    ['react', 'react-dom', 'react/*', 'react-dom/*', '@codemirror/*', ...drivers],
    'Drawing functions read plain data: no engine, no React, no components.',
  ),
  layer(
    'offline',
    ['engine', 'sim', 'spec', 'exercises', 'viz', 'components', 'pages'],
    [...views, ...drivers],
    'Reading offline knows the built files and their addresses, not what they do.',
  ),
  layer(
    'components',
    ['engine/pglite', 'engine/server', 'pages'],
    drivers,
    'Components reach the engine through src/engine/page.ts and the interface files beside it.',
  ),
);
