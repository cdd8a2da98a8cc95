// Statements that would break the session layer itself, refused before they reach the
// backend: ending a transaction the layer prepared, changing who the one backend's login
// is, changing the sim schema (or what it needs), hiding pg_catalog's objects behind the
// search path, a statement too large to keep, giving up other sessions' advisory locks.
// The text says only what kind of statement it is; whether it touches what the layer
// needs is asked of PostgreSQL where it can be. Inside PostgreSQL, the guard's event
// triggers (sim-schema.ts) stop the same changes however they are sent (a DO block, a
// function, CASCADE); toReply turns their errors into the same refusals (guard-codes.ts).
import { byText } from '../../by-text';
import { identifier, splitStatements, storedIdentifier } from '../../split-statements';
import { answerCaps } from '../../types';
import { whose, type LayerContext, type SessionRecord } from './context';
import { notExpressible, type QueryReply } from './replies';

/** Statements that change the catalog's objects or privileges. */
const changesObjects =
  /^\s*(?:CREATE|ALTER|DROP|COMMENT|GRANT|REVOKE|SECURITY\s+LABEL|REASSIGN|IMPORT)\b/i;

/**
 * What of the layer's own a statement of that kind names, by text, for what the guard's
 * event triggers do not see: privileges (GRANT and REVOKE name no object to them), roles
 * (global objects fire no event trigger), and the guard itself (nor do event triggers).
 */
const layerTargets: [RegExp, string][] = [
  [
    /^\s*(?:GRANT|REVOKE)\b[^;]*(?:(?:^|[^\w$"])"?sim"?\s*\.|\bSCHEMA\b[^;]*?(?:^|[^\w$"])"?sim"?(?![\w$]))/i,
    'the sim schema',
  ],
  [/\bseat_ledger_\w+/i, 'the in-browser engine’s guard'],
  [/^\s*(?:ALTER|DROP)\s+(?:ROLE|USER|GROUP)\b[^;]*(?:^|[^\w$"])"?app"?(?![\w$])/i, 'the role app'],
  [/^\s*(?:REASSIGN|DROP)\s+OWNED\s+BY\b[^;]*(?:^|[^\w$"])"?app"?(?![\w$])/i, 'the role app'],
];

/** The layer's own settings, and those that would switch its guard off. */
const layerSetting = String.raw`(?:"?sim"?\s*\.\s*\w+|event_triggers|session_replication_role)`;
const setsLayerSetting = new RegExp(
  String.raw`^\s*(?:SET|RESET)\s+(?:SESSION\s+|LOCAL\s+)?${layerSetting}(?![\w$])` +
    String.raw`|\bset_config\s*\(\s*'${layerSetting}'` +
    String.raw`|^\s*ALTER\s+(?:SYSTEM|DATABASE|ROLE|USER)\b[^;]*\b(?:SET|RESET)\s+${layerSetting}(?![\w$])`,
  'i',
);

/** Changing the login every session shares (DEFAULT, back to it, is harmless). */
const sessionAuthorization =
  /^\s*SET\s+(?:SESSION\s+|LOCAL\s+)?SESSION\s+AUTHORIZATION\s+(?!DEFAULT\b)|^\s*SET\s+(?:SESSION\s+|LOCAL\s+)?session_authorization\b(?!\s*(?:=|TO)\s*DEFAULT\b)|\bset_config\s*\(\s*'session_authorization'|^\s*ALTER\s+(?:SYSTEM|DATABASE|ROLE|USER)\b[^;]*\bSET\s+session_authorization\b/i;

const endsPrepared = /^\s*(?:COMMIT|ROLLBACK)\s+PREPARED\b\s*(?:'((?:[^']|'')*)'\s*;?\s*$)?/i;

const releasesAllAdvisory = /^\s*DISCARD\s+ALL\b|\bpg_advisory_unlock_all\s*\(/i;

/**
 * CREATE of an object that a name finds through the search path: its kind, its schema if
 * it names one, and its name.
 */
const createsNamed = new RegExp(
  String.raw`^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:(?:TEMP|TEMPORARY|UNLOGGED|RECURSIVE)\s+)?` +
    String.raw`(TABLE|VIEW|MATERIALIZED\s+VIEW|SEQUENCE|FUNCTION|PROCEDURE|AGGREGATE|TYPE|DOMAIN)\s+` +
    String.raw`(?:IF\s+NOT\s+EXISTS\s+)?(?:(${identifier})\s*\.\s*)?(${identifier})`,
  'i',
);
const renamesTo = new RegExp(
  String.raw`^\s*ALTER\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|SEQUENCE|FUNCTION|PROCEDURE|AGGREGATE|TYPE|DOMAIN)\s+(?:IF\s+EXISTS\s+)?(?:(${identifier})\s*\.\s*)?${identifier}\b[^;]*\bRENAME\s+TO\s+(${identifier})`,
  'i',
);

/**
 * The catalogs a name of each kind is looked up in: a relation's name finds relations and,
 * as its row type, types; a function's, functions; a type's, types.
 */
function lookedUpIn(kind: string): ('pg_class' | 'pg_proc' | 'pg_type')[] {
  if (/^(?:FUNCTION|PROCEDURE|AGGREGATE)$/i.test(kind)) return ['pg_proc'];
  if (/^(?:TYPE|DOMAIN)$/i.test(kind)) return ['pg_type'];
  return ['pg_class', 'pg_type'];
}

/** `sql` with its string literals and dollar-quoted bodies blanked out. */
const withoutLiterals = (sql: string) =>
  sql
    .replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, ' ');

/**
 * The refusal of a statement over `answerCaps.statementBytes` of UTF-8 (counted only when
 * it may be over), or null. The page's sessions ask it too, so as not to send one.
 */
export function statementTooLarge(
  sql: string,
): Extract<QueryReply, { notExpressible: unknown }> | null {
  if (sql.length <= answerCaps.statementBytes / 3) return null;
  const bytes = new TextEncoder().encode(sql).length;
  if (bytes <= answerCaps.statementBytes) return null;
  return notExpressible(
    'statement-too-large',
    bytes.toLocaleString('en'),
    answerCaps.statementBytes.toLocaleString('en'),
  );
}

/** Whether pg_catalog has an object called `object` in one of `catalogs`. */
async function inCatalog(
  ctx: LayerContext,
  object: string,
  catalogs: ('pg_class' | 'pg_proc' | 'pg_type')[],
): Promise<boolean> {
  const column = { pg_class: 'relname', pg_proc: 'proname', pg_type: 'typname' };
  const space = { pg_class: 'relnamespace', pg_proc: 'pronamespace', pg_type: 'typnamespace' };
  const [found] = await ctx.backend.exec(
    `SELECT ${catalogs
      .map(
        (c) =>
          `EXISTS (SELECT FROM pg_catalog.${c} WHERE ${space[c]} = 'pg_catalog'::pg_catalog.regnamespace AND ${column[c]} = $1)`,
      )
      .join(' OR ')}`,
    [object],
  );
  return found!.rows[0]![0] === 't';
}

/** Whether `gid` is a transaction prepared now (all of them are the layer's). */
async function isPrepared(ctx: LayerContext, gid: string): Promise<boolean> {
  const [found] = await ctx.backend.exec(
    'SELECT EXISTS (SELECT FROM pg_catalog.pg_prepared_xacts WHERE gid = $1)',
    [gid],
  );
  return found!.rows[0]![0] === 't';
}

/**
 * What the guard reads of one statement from its text alone, once per text: most
 * statements (a SELECT, an UPDATE) are of no kind it looks at further (`looked` false),
 * and for those nothing is asked of PostgreSQL.
 */
const readGuarded = byText((statement) => {
  const ending = endsPrepared.exec(statement.replace(/--[^\n]*/g, ' '));
  const text = withoutLiterals(statement);
  const read = {
    /** COMMIT/ROLLBACK PREPARED: the gid named, or null when it is not a plain literal. */
    endsPrepared: ending ? (ending[1]?.replace(/''/g, "'") ?? null) : undefined,
    // set_config names its setting in a literal: read it with the literals left in.
    sessionAuthorization: sessionAuthorization.test(statement),
    setsLayerSetting: setsLayerSetting.test(statement),
    /** The statement with its literals blanked, when it changes the catalog's objects. */
    changesObjects: changesObjects.test(text) ? text : null,
    releasesAllAdvisory: releasesAllAdvisory.test(text),
  };
  const looked =
    read.endsPrepared !== undefined ||
    read.sessionAuthorization ||
    read.setsLayerSetting ||
    read.changesObjects !== null ||
    read.releasesAllAdvisory;
  return { ...read, looked };
});

/** One statement's refusal, or null when the layer may let PostgreSQL answer it. */
async function guardStatement(
  ctx: LayerContext,
  s: SessionRecord,
  statement: string,
): Promise<QueryReply | null> {
  const read = readGuarded(statement);
  if (read.endsPrepared !== undefined) {
    // The reader cannot prepare a transaction (`prepared-by-reader`), so every prepared
    // one is the layer's; a gid that is none is PostgreSQL's to answer.
    const gid = read.endsPrepared;
    if (gid === null) return notExpressible('layer-transaction', 'the transaction named');
    if (await isPrepared(ctx, gid)) return notExpressible('layer-transaction', gid);
  }
  if (read.sessionAuthorization) return notExpressible('session-authorization');
  if (read.setsLayerSetting) {
    return notExpressible('layer-schema', 'the in-browser engine’s own settings', '');
  }
  const text = read.changesObjects;
  if (text !== null) {
    for (const [target, what] of layerTargets) {
      if (target.test(text)) return notExpressible('layer-schema', what, '');
    }
    const named = createsNamed.exec(text) ?? renamesTo.exec(text);
    if (named) {
      const [kind, schema, object] = [named[1]!, named[2], named[3]!];
      const where = schema === undefined ? undefined : storedIdentifier(schema);
      if (where === 'sim' || where === 'pg_catalog') {
        return notExpressible(
          'layer-schema',
          where === 'sim' ? 'the sim schema' : 'pg_catalog',
          '',
        );
      }
      if (await inCatalog(ctx, storedIdentifier(object), lookedUpIn(kind))) {
        return notExpressible('shadows-catalog', storedIdentifier(object), '');
      }
    }
  }
  if (read.releasesAllAdvisory) {
    const other = [...ctx.advisoryHeld.values()].find((h) => h.holder !== s);
    if (other) return notExpressible('releases-others-locks', whose(other.holder));
  }
  return null;
}

/**
 * Refuses `s`'s `sql` when it would break the layer (see above); null when it may go on.
 * Called once, as runQuery starts. Most statements are none of the guard's business, and
 * are let go at once.
 */
export function guard(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): QueryReply | null | Promise<QueryReply | null> {
  const large = statementTooLarge(sql);
  if (large) return large;
  const looked = lookedAt(sql);
  return looked.length > 0 ? guardEach(ctx, s, looked) : null;
}

/** The statements of a query string that the guard looks at further (see `readGuarded`). */
const lookedAt = byText((sql: string): readonly { sql: string }[] =>
  splitStatements(sql).filter(({ sql: statement }) => readGuarded(statement).looked),
);

/** `guard` for the statements it looks at, in order: the first refusal, or null. */
async function guardEach(
  ctx: LayerContext,
  s: SessionRecord,
  statements: readonly { sql: string }[],
): Promise<QueryReply | null> {
  for (const { sql: statement } of statements) {
    const refused = await guardStatement(ctx, s, statement);
    if (refused) return refused;
  }
  return null;
}
