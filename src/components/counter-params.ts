// The counter demo's URL: the knobs a teacher sets in an embed (`?workers=30&shape=hold`)
// and "this moment" (`?moment=…`, a checkpoint: settings, the reader's commands and the
// simulated time, replayed from the seed). Nothing here throws: a bad value is reported
// in a sentence and the default is used.
import type { Checkpoint } from '../sim/counter-sim';
import { clampSetting, normaliseSettings, type CounterSettings } from '../sim/settings';
import type { ScriptEntry } from '../sim/state';
import { embedParamNames } from './embed-params';

/** The longest moment a link may ask to replay: ten simulated minutes. */
export const longestMomentMs = 600_000;

/** The parameters an embed may carry, as the sim's setting names. */
const urlSettings = ['workers', 'api', 'shape', 'connections', 'speed', 'seed'] as const;

/** What a counter URL asks for. */
export interface CounterParams {
  settings: CounterSettings;
  /** Start paused (`paused=1`). */
  paused: boolean;
  /** A moment to come back to, or null for a fresh start. */
  moment: Checkpoint | null;
  /** One plain sentence per parameter that was ignored or changed. */
  problems: string[];
}

/** Reads a counter URL's query string. */
export function readCounterParams(search: string): CounterParams {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  const moment = params.has('moment') ? readMoment(params.get('moment')!, problems) : null;
  if (moment) {
    return { settings: settingsAtMoment(moment), paused: moment.paused, moment, problems };
  }
  const input: Record<string, string> = {};
  for (const [key, value] of params) {
    if ((urlSettings as readonly string[]).includes(key)) input[key] = value;
    else if (key !== 'paused' && key !== 'moment' && !isEmbedParam(key))
      problems.push(`unknown parameter ${key} ignored`);
  }
  const normalised = normaliseSettings(input);
  const pausedText = params.get('paused');
  let paused = false;
  if (pausedText !== null) {
    paused = ['1', 'true', ''].includes(pausedText);
    if (!paused && !['0', 'false'].includes(pausedText)) {
      problems.push(`paused must be 1 or 0, not "${pausedText}"; not paused`);
    }
  }
  return {
    settings: normalised.settings,
    paused,
    moment: null,
    problems: [...problems, ...normalised.problems],
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

/** Theme, load and present are every demo's, read by embed-params.ts. */
function isEmbedParam(key: string): boolean {
  return (embedParamNames as readonly string[]).includes(key);
}

/** The query string that brings back `checkpoint`. */
export function momentSearch(checkpoint: Checkpoint): string {
  return `?moment=${toBase64Url(JSON.stringify(checkpoint))}`;
}

function readMoment(text: string, problems: string[]): Checkpoint | null {
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
    return {
      version: 1,
      settings,
      script: value.script.flatMap((entry) => readEntry(entry, atMs)),
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
