// The format of a scenario file (content/scenarios/<id>.yaml): the sessions, the setup,
// the steps with their narration, the reader's choices and the claims each step makes,
// written so that a test can check them on a real server's output. One zod schema checks
// the files at build time (src/content.config.ts) and in the tests (load.ts).
import { z } from './zod';

const name = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes, starting with a letter');

/** A value in a claim's rows: text as psql prints it, a number, or null for SQL NULL. */
const cell = z.union([z.string(), z.number(), z.null()]);

/**
 * Which runs a step or claim belongs to: choice id → the option value (or values) it
 * needs. A step with no `when` belongs to every run.
 */
const when = z.record(z.string(), z.union([z.string(), z.array(z.string()).min(1)]));

/** One connection of the scenario, shown as a lane. */
export const sessionSchema = z.object({
  /** Its name in steps and on its lane, e.g. `worker-a`. */
  name,
  /** `application_name` in pg_stat_activity (default: the name). */
  application_name: z.string().min(1).optional(),
  /** What the lane says the session is, e.g. `a worker that holds its transaction`. */
  role_in_story: z.string().min(1).optional(),
  /** `ordinary` connects as the role `app`; `superuser` as `postgres` (the default). */
  role: z.enum(['superuser', 'ordinary']).default('superuser'),
  /** The database it connects to (default `postgres`); may be a `{{key}}`. */
  database: z.string().min(1).optional(),
});

/** A block of SQL for the setup or teardown, for every run or only some. */
const blockSchema = z.union([
  z.string().min(1),
  z.object({ sql: z.string().min(1), when: when.optional() }),
]);

/**
 * What one step demonstrates, checked on the step's own output as soon as it completes
 * (on the reader's PGlite in the player, on PostgreSQL 18 in the tests). `says` is the
 * claim in words; exactly one check follows it. `{name}` in a value stands for a value
 * kept by an earlier step (see `keep`).
 */
export const claimSchema = z
  .object({
    says: z.string().min(1),
    when: when.optional(),
    /** The step was, or was not, seen waiting before it completed. */
    waits: z.boolean().optional(),
    /** The step completed without an error. */
    ok: z.literal(true).optional(),
    /**
     * The step answered no sooner than `at_least` seconds after it was sent (a number, or
     * `{{parameter}}`): how long a wait lasted.
     */
    lasts: z.object({ at_least: z.union([z.number().nonnegative(), z.string()]) }).optional(),
    /** The step failed with this SQLSTATE, and this message when given. */
    error: z.object({ code: z.string().length(5), message: z.string().optional() }).optional(),
    /**
     * The last result that has columns: every row (`equals`; `[]` claims there is none),
     * or its first rows (`starts_with`), with only `columns` of each when given.
     */
    rows: z
      .object({
        columns: z.array(z.string()).min(1).optional(),
        equals: z.array(z.array(cell)).optional(),
        starts_with: z.array(z.array(cell)).min(1).optional(),
        /** Compare as a set: for RETURNING, or rows whose order is a tie. */
        any_order: z.boolean().default(false),
      })
      .refine((r) => (r.equals === undefined) !== (r.starts_with === undefined), {
        message: 'rows claims either equals or starts_with',
      })
      .optional(),
    /** The last result's command tag, e.g. `UPDATE 2`. */
    tag: z.string().optional(),
    /**
     * The first row's `column` is not `from` (a value kept earlier, as `{name}`): a
     * backend pid after the pool opened a new connection, say.
     */
    differs: z.object({ column: z.string(), from: z.string() }).optional(),
    /**
     * A notice line matching `matches` (a regular expression) exists; with `equals`,
     * `atLeast` or `atMost`, its first group is compared (as text, or as a number).
     */
    notice: z
      .object({
        matches: z.string().min(1),
        equals: z.union([z.string(), z.number()]).optional(),
        atLeast: z.number().optional(),
        atMost: z.number().optional(),
      })
      .optional(),
  })
  .refine(
    (claim) =>
      ['waits', 'ok', 'lasts', 'error', 'rows', 'tag', 'notice', 'differs'].filter(
        (k) => claim[k as keyof typeof claim] !== undefined,
      ).length === 1,
    {
      message: 'a claim checks exactly one of: waits, ok, lasts, error, rows, tag, notice, differs',
    },
  );

/** A value a step keeps for later claims: a column of its first row, or a notice's group. */
const keepSchema = z.union([
  z.string(),
  z.object({ column: z.string() }),
  z.object({ notice: z.string().min(1) }),
]);

/**
 * Something a process the site models does, not PostgreSQL: the kernel's OOM killer ends
 * the API process, a broker takes a message, a pool opens a connection. It sends no SQL;
 * the player labels it modelled. With `disconnect`, the step's session closes as its
 * client's process dies: the server sees the connection go and rolls back its transaction.
 * With `reconnect`, its client throws the connection away and opens a new one (a pool
 * replacing a dead connection): the session's later steps run on a new backend.
 */
export const modelSchema = z
  .object({
    /** Who acts, as the lane says it: `the kernel's OOM killer`, `the broker`. */
    by: z.string().min(1),
    disconnect: z.boolean().default(false),
    reconnect: z.boolean().default(false),
  })
  .refine((m) => !(m.disconnect && m.reconnect), {
    message: 'a model step disconnects or reconnects, not both',
  });

/**
 * One step: a session sends SQL, or a modelled process acts (`model`), with a line or two
 * of narration.
 */
export const stepSchema = z
  .object({
    /** A name other parts of the file refer to it by (a quotation's `beside`). */
    id: name.optional(),
    /** The session that sends it. */
    session: name,
    /**
     * The SQL, sent as one query string; `{{id}}` stands for a choice's or a parameter's
     * value (see `choices[].options[].set`, `parameters`). A `model` step has none.
     */
    sql: z.string().min(1).optional(),
    model: modelSchema.optional(),
    /** The narration: what happens, in plain words. */
    say: z.string().min(1),
    /** Seconds to wait before sending it (a number, or `{{parameter}}`). */
    after: z.union([z.number().nonnegative(), z.string()]).optional(),
    /**
     * Sent right after the step before it, as part of the same Next (after its own `after`),
     * for steps whose timing must not depend on how long the reader reads.
     */
    chain: z.boolean().default(false),
    /**
     * Bound parameters for `$1`, `$2`…: the step then goes over the extended protocol, as a
     * driver sends a statement with parameters (without them, the simple protocol).
     */
    params: z.array(z.union([z.string(), z.number(), z.null()])).optional(),
    when: when.optional(),
    /** The line of the scenario's `code` (from 1) this step is, highlighted while shown. */
    line: z.number().int().positive().optional(),
    /** Values to keep for later claims, by name. */
    keep: z.record(z.string(), keepSchema).optional(),
    claims: z.array(claimSchema).default([]),
  })
  .refine((step) => (step.sql === undefined) !== (step.model === undefined), {
    message: 'a step has either sql or model',
  })
  .refine(
    (step) =>
      !step.model || (step.claims.length === 0 && !step.keep && !step.params && !step.chain),
    { message: 'a model step sends nothing, so it has no claims, keep, params or chain' },
  );

/** One option of a choice. */
export const optionSchema = z.object({
  value: name,
  label: z.string().min(1),
  /** A sentence on what this option shows. */
  note: z.string().optional(),
  /** Text put in place of `{{key}}` in the steps' SQL when this option is chosen. */
  set: z.record(z.string(), z.string()).default({}),
  /**
   * PGlite cannot show this option truthfully, so the player shows what PostgreSQL 18
   * printed for it, recorded by `npm run record` (content/recordings/) and checked by a test.
   */
  recorded: z.boolean().default(false),
  /** Why it is recorded, in plain words (required with `recorded`). */
  recorded_because: z.string().optional(),
  /**
   * A figure or answer quoted from elsewhere for this option, with its source; `beside`
   * names the step whose time measured in the reader's page is shown next to it.
   */
  quoted: z
    .object({ text: z.string().min(1), source: z.string().min(1), beside: name.optional() })
    .optional(),
  /** Shown apart from the others, e.g. a nuance the source does not cover. */
  aside: z.boolean().default(false),
});

/** A choice the reader makes before playing, e.g. SKIP LOCKED on or off. */
export const choiceSchema = z.object({
  id: name,
  label: z.string().min(1),
  /** Text for `{{key}}` that every option gets unless it sets its own. */
  set: z.record(z.string(), z.string()).default({}),
  options: z.array(optionSchema).min(2),
  /** The value chosen at first (default: the first option's). */
  default: z.string().optional(),
});

/** A number the reader sets, e.g. how long a worker holds its transaction. */
export const parameterSchema = z.object({
  id: name,
  label: z.string().min(1),
  unit: z.string().default(''),
  default: z.number(),
  min: z.number(),
  max: z.number(),
  step: z.number().positive().default(1),
  /** The value the tests use, when the default would make them slow. */
  test: z.number().optional(),
});

/** A quotation shown beside the live figures, with its source. */
const quoteSchema = z.object({ text: z.string().min(1), source: z.string().min(1) });

/**
 * A short interactive beside the demo: the reader answers yes or no to each question, and
 * each answer counts for one column; the column with more answers is theirs, and a tie
 * says `tie`. A rule of thumb in the site's words, not PostgreSQL output.
 */
const decideSchema = z.object({
  question: z.string().min(1),
  columns: z
    .array(z.object({ id: name, label: z.string().min(1), says: z.string().min(1) }))
    .length(2),
  asks: z
    .array(z.object({ text: z.string().min(1), yes: name, no: name }))
    .min(1)
    .max(8),
  tie: z.string().min(1),
});

/**
 * The processes of the story drawn as boxes in a row (browser, API server, PostgreSQL,
 * workers), each holding the sessions it opens; `to_next` is the arrow to the box after
 * it. A model step's `by` names the box it happens in through `actors`.
 */
const pictureSchema = z.object({
  caption: z.string().min(1),
  boxes: z
    .array(
      z.object({
        id: name,
        label: z.string().min(1),
        /** What it is, in a few words, under its label. */
        note: z.string().optional(),
        sessions: z.array(name).default([]),
        /** The `by` of model steps that happen in this box. */
        actors: z.array(z.string().min(1)).default([]),
        /** The arrow to the next box: it calls the next, the next calls it, or none. */
        to_next: z.enum(['→', '←', '']).default(''),
      }),
    )
    .min(2)
    .max(6),
});

/**
 * A timeline beside the steps, for something that happens over time in a modelled process
 * (a pool recycling its connections): marks at times from 0 to `until`, in `unit`.
 */
const timelineSchema = z.object({
  caption: z.string().min(1),
  unit: z.string().min(1),
  until: z.number().positive(),
  marks: z
    .array(z.object({ at: z.number().nonnegative(), says: z.string().min(1) }))
    .min(1)
    .max(12),
});

/** A scenario file. */
export const scenarioSchema = z
  .object({
    /** The demo's title, in sentence case. */
    title: z.string().min(1),
    /** One or two sentences: what the reader will see. */
    summary: z.string().min(1),
    /** What to take away, shown once the last step has run. */
    lesson: z.string().min(1),
    /**
     * One sentence that says what in this demo is modelled rather than PostgreSQL (the API
     * process, the broker, the pool); required when a step is a `model` step.
     */
    modelled: z.string().min(1).optional(),
    sessions: z.array(sessionSchema).min(1),
    /**
     * Run first, by a connection of its own (the isolation tester's control connection);
     * each block is one query string, so a statement that cannot run in a transaction
     * block (CREATE DATABASE) gets a block of its own.
     */
    setup: z.union([z.string().min(1), z.array(blockSchema).min(1)]),
    /** Run at the end, and before a replay, by that same connection. */
    teardown: z.union([z.string().min(1), z.array(blockSchema).min(1)]),
    /**
     * Databases some session connects to besides `postgres`: created before the sessions
     * connect, dropped after they close.
     */
    databases: z.array(z.object({ name, when: when.optional() })).default([]),
    choices: z.array(choiceSchema).default([]),
    parameters: z.array(parameterSchema).default([]),
    quotes: z.array(quoteSchema).default([]),
    steps: z.array(stepSchema).min(1),
    /**
     * A countdown the player shows once step `from` (an id) has run, for a deadline the
     * server keeps (a timeout): `seconds` (a number or `{{parameter}}`), and what ends.
     */
    countdown: z
      .object({
        from: name,
        seconds: z.union([z.number().positive(), z.string()]),
        says: z.string().min(1),
      })
      .optional(),
    /**
     * A table the reader fills in, one row per option of `choice`: after each run, the
     * value kept as `value` (a number) says yes when it is above zero. Each option's
     * `quoted` answer stands beside the reader's.
     */
    decide: decideSchema.optional(),
    picture: pictureSchema.optional(),
    timeline: timelineSchema.optional(),
    /**
     * Application code beside the steps, one listing per option of `choice` (the worker's
     * code in each shape, say); a step's `line` is highlighted in it.
     */
    code: z
      .object({
        choice: name,
        label: z.string().min(1),
        language: z.string().min(1),
        sources: z.record(z.string(), z.string().min(1)),
      })
      .optional(),
    tally: z
      .object({
        choice: name,
        question: z.string().min(1),
        value: z.string().min(1),
        yes: z.string().min(1),
        no: z.string().min(1),
      })
      .optional(),
  })
  .superRefine((scenario, ctx) => {
    const sessions = new Set(scenario.sessions.map((s) => s.name));
    if (scenario.steps.some((step) => step.model) && !scenario.modelled)
      ctx.addIssue({ code: 'custom', message: 'say what is modelled (`modelled`)' });
    if (sessions.size !== scenario.sessions.length)
      ctx.addIssue({ code: 'custom', message: 'two sessions share a name' });
    scenario.steps.forEach((step, i) => {
      if (!sessions.has(step.session))
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'session'],
          message: `no session is named ${step.session}`,
        });
    });
    for (const box of scenario.picture?.boxes ?? [])
      for (const session of box.sessions)
        if (!sessions.has(session))
          ctx.addIssue({ code: 'custom', path: ['picture'], message: `no session ${session}` });
    const code = scenario.code;
    const codeChoice = code && scenario.choices.find((c) => c.id === code.choice);
    if (code && !codeChoice)
      ctx.addIssue({ code: 'custom', path: ['code'], message: `no choice ${code.choice}` });
    for (const o of codeChoice?.options ?? [])
      if (code!.sources[o.value] === undefined)
        ctx.addIssue({ code: 'custom', path: ['code'], message: `no source for ${o.value}` });
    const columns = new Set(scenario.decide?.columns.map((c) => c.id));
    scenario.decide?.asks.forEach((ask, i) => {
      for (const id of [ask.yes, ask.no])
        if (!columns.has(id))
          ctx.addIssue({ code: 'custom', path: ['decide', 'asks', i], message: `no column ${id}` });
    });
    const choices = new Map(scenario.choices.map((c) => [c.id, c]));
    const checkWhen = (w: z.infer<typeof when> | undefined, path: (string | number)[]) => {
      for (const [id, values] of Object.entries(w ?? {})) {
        const choice = choices.get(id);
        for (const value of [values].flat())
          if (!choice?.options.some((o) => o.value === value))
            ctx.addIssue({ code: 'custom', path, message: `no choice ${id} with option ${value}` });
      }
    };
    scenario.steps.forEach((step, i) => {
      checkWhen(step.when, ['steps', i, 'when']);
      step.claims.forEach((c, j) => checkWhen(c.when, ['steps', i, 'claims', j, 'when']));
    });
    for (const choice of scenario.choices) {
      if (choice.default && !choice.options.some((o) => o.value === choice.default))
        ctx.addIssue({
          code: 'custom',
          message: `choice ${choice.id}: no option ${choice.default}`,
        });
      for (const o of choice.options)
        if (o.recorded && !o.recorded_because)
          ctx.addIssue({
            code: 'custom',
            message: `choice ${choice.id}, option ${o.value}: say why it is recorded`,
          });
    }
  });

export type Scenario = z.output<typeof scenarioSchema> & { id: string };
export type ScenarioStep = z.output<typeof stepSchema>;
export type Claim = z.output<typeof claimSchema>;
export type ScenarioSession = z.output<typeof sessionSchema>;
export type Choice = z.output<typeof choiceSchema>;
export type Parameter = z.output<typeof parameterSchema>;
export type Decide = z.output<typeof decideSchema>;
export type Picture = z.output<typeof pictureSchema>;
export type Timeline = z.output<typeof timelineSchema>;
