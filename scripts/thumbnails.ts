// `node scripts/thumbnails.ts DIR`: draws every demo's thumbnail (for its oEmbed file) and
// writes DIR/<id>.svg and DIR/<id>.png. The build runs it (src/pages/oembed/[demo].png.ts).
// Every thumbnail shows something real: the counter's own picture drawn by its draw
// function from a short run of the simulation on PGlite; for the slots demo and the
// console, what PGlite answered just now; for a scenario demo, a step of its recording
// of PostgreSQL 18. No browser: the picture is drawn under jsdom, the PNG made by resvg.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { JSDOM } from 'jsdom';
import './resolve-ts.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/thumbnails.ts DIR');
mkdirSync(dir, { recursive: true });
const root = process.cwd();

const { demos } = await import('../src/components/demo-list.ts');
const { cardSvg, pictureSvg, thumbnailSize } = await import('../src/components/thumbnail.ts');
const { outputLines } = await import('../src/components/output-text.ts');
const { loadScenario } = await import('../src/scenario/load.ts');
const { defaultSelection, planSteps, selectionKey } = await import('../src/scenario/plan.ts');
const { recordingSchema, shortVersion } = await import('../src/scenario/recording.ts');
const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');
const { startCounterSim } = await import('../src/sim/counter-sim.ts');
const { SlotsRun, slotsDefaults, startupOrder } = await import('../src/sim/slots.ts');
const { counterPicture } = await import('../src/components/counter-picture-map.ts');
const { drawCounter } = await import('../src/viz/counter.ts');

type Svg = string;

/**
 * A scenario demo: the step that makes the most claims PostgreSQL bore out (the first of
 * those), in the run of its first preset's choices (recorded with the default numbers).
 */
function scenarioThumbnail(id: string, preset: Record<string, unknown>): Svg {
  const scenario = loadScenario(id);
  const file = path.join(root, 'content', 'recordings', `${id}.json`);
  const recording = recordingSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const selection = defaultSelection(scenario);
  for (const c of scenario.choices)
    if (typeof preset[c.id] === 'string') selection.choices[c.id] = preset[c.id] as string;
  const events = recording.runs[selectionKey(scenario, selection)]?.events;
  if (!events) throw new Error(`${id}: no recording of ${selectionKey(scenario, selection)}`);
  const steps = planSteps(scenario, selection);
  const held = (e: (typeof events)[number]) => (e.claims ?? []).filter((c) => c.held).length;
  const shown = events
    .filter((e) => e.output && held(e) > 0)
    .reduce<(typeof events)[number] | undefined>(
      (best, e) => (best && held(best) >= held(e) ? best : e),
      undefined,
    );
  if (!shown?.output) throw new Error(`${id}: no recorded step with output`);
  const step = steps[shown.step]!;
  return cardSvg({
    title: scenario.title,
    source: `Recorded on ${shortVersion(recording.server)}, step ${step.index + 1} of ${steps.length}`,
    sent: `${scenario.sessions[step.session]!.name}: ${step.sql.replace(/\s+/g, ' ')}`,
    lines: outputLines(shown.output),
  });
}

/** The counter's picture after ten simulated seconds of the article's deployment. */
async function counterThumbnail(): Promise<Svg> {
  const preset = demos.find((d) => d.id === 'counter')!.presets.find((p) => p.id === 'article')!;
  const v = preset.values;
  const engine = await createNodePgliteEngine();
  try {
    const sim = await startCounterSim(engine, {
      workers: v.workers,
      connections: v.connections,
      api: v.api,
      shape: v.shape,
      uploadRate: v.uploads,
    });
    await sim.advance(10_000);
    const observation = await sim.observe();
    const picture = counterPicture(sim.view(), observation);
    await sim.stop();
    if (!picture) throw new Error('counter: no picture');
    const { window } = new JSDOM('<!doctype html><body></body>');
    const svg = window.document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    window.document.body.append(svg);
    const width = 900;
    drawCounter(svg, picture, { width, reducedMotion: true });
    svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    const css = readFileSync(path.join(root, 'src', 'viz', 'counter.css'), 'utf8');
    return pictureSvg(svg.outerHTML, css, width);
  } finally {
    await engine.close();
  }
}

/** The slots demo: the article's 120 connections asked for on PGlite, and who was refused. */
async function slotsThumbnail(title: string): Promise<Svg> {
  const engine = await createNodePgliteEngine();
  try {
    const run = new SlotsRun(engine);
    await run.askAll(startupOrder(slotsDefaults));
    for (let i = 0; i < 4; i++)
      await run.ask({ process: 'superuser', what: `walks in (${i + 1})` }, 'superuser');
    const seated = run.outcomes.filter((o) => 'seat' in o).length;
    const refusals = run.outcomes.flatMap((o) =>
      'refused' in o ? [`${o.ask.process} ${o.ask.what}: FATAL:  ${o.refused.message}`] : [],
    );
    const first = refusals[0]!;
    const last = refusals.at(-1)!;
    await run.close();
    return cardSvg({
      title,
      source: 'PostgreSQL 18 in PGlite; its connection slots modelled by the session layer',
      sent: `30 workers × 3 + 2 API × (5 + 10) = 120 connections, then a superuser`,
      lines: [
        `${seated} seated, ${refusals.length} refused (SQLSTATE 53300)`,
        '',
        first,
        '…',
        last,
      ],
    });
  } finally {
    await engine.close();
  }
}

/** The console: a statement run on PGlite just now. */
async function consoleThumbnail(title: string): Promise<Svg> {
  const engine = await createNodePgliteEngine();
  try {
    const session = await engine.openSession({ applicationName: 'thumbnail' });
    const sql = "SELECT split_part(version(), ' on ', 1) AS version, 6 * 7 AS answer;";
    const result = await session.query(sql);
    await session.close();
    return cardSvg({
      title,
      source: 'PostgreSQL 18 in PGlite, as in the reader’s browser',
      sent: `you: ${sql}`,
      lines: outputLines(result),
    });
  } finally {
    await engine.close();
  }
}

/** How each tool demo's thumbnail is drawn; a new tool needs one here. */
const tools: Record<string, (title: string) => Promise<Svg>> = {
  console: consoleThumbnail,
  counter: () => counterThumbnail(),
  slots: slotsThumbnail,
};

for (const demo of demos) {
  let svg: Svg;
  if (demo.kind === 'scenario') svg = scenarioThumbnail(demo.id, demo.presets[0]?.values ?? {});
  else {
    const draw = tools[demo.id];
    if (!draw) throw new Error(`thumbnails: no way to draw the ${demo.id} demo`);
    svg = await draw(demo.title);
  }
  writeFileSync(path.join(dir, `${demo.id}.svg`), svg);
  const png = new Resvg(svg, {
    fitTo: { mode: 'width', value: thumbnailSize.width },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
  writeFileSync(path.join(dir, `${demo.id}.png`), png);
}
console.log(`thumbnails: ${demos.length} written`);
