// The counter demo's URL: the knobs a teacher sets in an embed (`?workers=30&shape=hold`)
// and "this moment" (`?moment=…`, a checkpoint: settings, the reader's commands and the
// simulated time, replayed from the seed). The knobs are defined once, below, from the
// sim's own limits and defaults (settings.ts): the parser, the teacher's docs and the
// embed builder read that one list. Nothing here throws: a bad value is reported and the
// default, or the nearest allowed value, is used.
import type { Checkpoint } from '../sim/counter-sim';
import {
  clampSetting,
  defaultSettings,
  normaliseSettings,
  settingLimits,
  type CounterSettings,
  type NumberKey,
  type Shape,
} from '../sim/settings';
import type { ScriptEntry } from '../sim/state';
import { embedParamNames } from './embed-params';
import {
  describeParamProblem,
  readParams,
  type NumberParam,
  type ParamProblem,
  type ParamSpec,
} from './url-params';

/** The longest moment a link may ask to replay: ten simulated minutes. */
export const longestMomentMs = 600_000;

/** The most reader commands a moment may carry; a replay runs each of them. */
export const mostMomentCommands = 500;

/** The longest `moment` a link may carry, in characters (a moment of 500 commands fits). */
export const longestMomentText = 64 * 1024;

/** A number setting of the sim as the URL names it. */
function numberParam(
  name: string,
  setting: NumberKey,
  says: string,
  more: Partial<Pick<NumberParam, 'step' | 'unit'>> = {},
): NumberParam & { setting: NumberKey } {
  const { min, max, whole } = settingLimits[setting];
  return {
    kind: 'number',
    name,
    setting,
    min,
    max,
    whole,
    step: more.step ?? 1,
    default: defaultSettings[setting],
    says,
    ...(more.unit ? { unit: more.unit } : {}),
  };
}

/** The worker shapes, in the sim's words. */
const shapeOptions: readonly { value: Shape; label: string }[] = [
  { value: 'hold', label: 'hold the transaction while working' },
  { value: 'claim-close', label: 'claim → close → work → record' },
];

/** The counter's own URL parameters, each mapped to the sim setting it sets. */
const counterSettingParams = [
  numberParam('workers', 'workers', 'worker processes claiming jobs'),
  numberParam(
    'connections',
    'connections',
    'connections each worker opens (claim loop, heartbeat, handler)',
  ),
  {
    kind: 'choice',
    name: 'shape',
    setting: 'shape',
    options: shapeOptions,
    default: defaultSettings.shape,
    says: 'how a worker holds its job',
  },
  numberParam('api', 'api', 'API processes, each with its own pool'),
  numberParam('uploads', 'uploadRate', 'uploads per simulated second, reaching the API in turn', {
    step: 0.5,
  }),
  numberParam('pool_size', 'poolSize', "each API pool's pool_size"),
  numberParam('max_overflow', 'maxOverflow', "each API pool's max_overflow"),
  {
    kind: 'flag',
    name: 'pre_ping',
    setting: 'poolPrePing',
    default: defaultSettings.poolPrePing,
    says: 'pool_pre_ping: SELECT 1 before lending a connection',
  },
  numberParam('speed', 'speed', 'simulated seconds per real second', { step: 0.25 }),
  numberParam('seed', 'seed', 'the seed of every random draw'),
] as const satisfies readonly (ParamSpec & { setting: keyof CounterSettings })[];

/** Every URL parameter of the counter, in the order the docs list them. */
export const counterParameters: readonly ParamSpec[] = [
  ...counterSettingParams,
  { kind: 'flag', name: 'paused', default: false, says: 'open paused (Step moves one tick)' },
];

/** What a counter URL asks for. */
export interface CounterParams {
  settings: CounterSettings;
  /** Start paused (`paused=1`). */
  paused: boolean;
  /** A moment to come back to, or null for a fresh start. */
  moment: Checkpoint | null;
  /** The parameters that could not be used as given, by kind. */
  reasons: ParamProblem[];
  /** One plain sentence per parameter that was ignored or changed. */
  problems: string[];
}

/** Reads a counter URL's query string. */
export function readCounterParams(search: string): CounterParams {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  const moment = params.has('moment') ? readMoment(params.get('moment')!, problems) : null;
  if (moment) {
    return {
      settings: settingsAtMoment(moment),
      paused: moment.paused,
      moment,
      reasons: [],
      problems,
    };
  }
  const read = readParams(counterParameters, search, [...embedParamNames, 'moment']);
  const input: Partial<Record<keyof CounterSettings, unknown>> = {};
  for (const p of counterSettingParams) input[p.setting] = read.values[p.name];
  // The values are in the sim's ranges already; the sim checks them again all the same.
  const normalised = normaliseSettings(input);
  return {
    settings: normalised.settings,
    paused: read.values.paused === true,
    moment: null,
    reasons: read.problems,
    problems: [...problems, ...read.problems.map(describeParamProblem), ...normalised.problems],
  };
}

/**
 * The settings in force at a moment, for the controls to show: those the run started with,
 * changed by the reader's commands up to then, at the speed it was running.
 */
export function settingsAtMoment(moment: Checkpoint): CounterSettings {
  const settings = { ...moment.settings, speed: moment.speed };
  for (const { atMs, command } of moment.script) {
    if (atMs > moment.atMs) continue;
    if (command.kind === 'workers') settings.workers = command.count;
    else if (command.kind === 'api') settings.api = command.count;
    else if (command.kind === 'upload-rate') settings.uploadRate = command.perSecond;
  }
  return settings;
}

/** The query string that brings back `checkpoint`. */
export function momentSearch(checkpoint: Checkpoint): string {
  return `?moment=${toBase64Url(JSON.stringify(checkpoint))}`;
}

function readMoment(text: string, problems: string[]): Checkpoint | null {
  if (text.length > longestMomentText) {
    problems.push(
      `the link’s moment is longer than ${longestMomentText.toLocaleString('en')} characters, so the counter starts afresh`,
    );
    return null;
  }
  try {
    const value = JSON.parse(fromBase64Url(text)) as Partial<Checkpoint>;
    if (
      value?.version !== 1 ||
      typeof value.atMs !== 'number' ||
      !Number.isFinite(value.atMs) ||
      value.atMs < 0 ||
      !Array.isArray(value.script)
    ) {
      throw new Error('not a moment');
    }
    let atMs = value.atMs;
    if (atMs > longestMomentMs) {
      problems.push(`the moment is after ${longestMomentMs / 60_000} minutes; replaying to there`);
      atMs = longestMomentMs;
    }
    const { settings, problems: settingProblems } = normaliseSettings(value.settings);
    problems.push(...settingProblems.map((p) => `in the moment: ${p}`));
    let script = value.script
      .flatMap((entry) => readEntry(entry, atMs))
      .sort((a, b) => a.atMs - b.atMs);
    if (script.length > mostMomentCommands) {
      problems.push(
        `the moment carries ${script.length} commands; replaying the first ${mostMomentCommands}`,
      );
      script = script.slice(0, mostMomentCommands);
    }
    return {
      version: 1,
      settings,
      script,
      atMs,
      speed: typeof value.speed === 'number' ? value.speed : settings.speed,
      paused: value.paused === true,
    };
  } catch {
    problems.push('the link’s moment could not be read, so the counter starts afresh');
    return null;
  }
}

/** One command of a moment's script, checked and clamped; [] when it is not one. */
function readEntry(entry: unknown, lastMs: number): ScriptEntry[] {
  const { atMs, command } = (entry ?? {}) as Partial<ScriptEntry>;
  if (typeof atMs !== 'number' || !(atMs >= 0 && atMs <= lastMs) || !command) return [];
  switch (command.kind) {
    case 'workers':
      return [
        { atMs, command: { kind: 'workers', count: clampSetting('workers', command.count) } },
      ];
    case 'api':
      return [{ atMs, command: { kind: 'api', count: clampSetting('api', command.count) } }];
    case 'upload-rate':
      return [
        {
          atMs,
          command: {
            kind: 'upload-rate',
            perSecond: clampSetting('uploadRate', command.perSecond),
          },
        },
      ];
    case 'kill-worker':
      return typeof command.worker === 'string' && /^worker-\d{2}$/.test(command.worker)
        ? [{ atMs, command: { kind: 'kill-worker', worker: command.worker } }]
        : [];
    default:
      return [];
  }
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
