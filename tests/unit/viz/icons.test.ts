// @vitest-environment jsdom
// One icon set for the site's things (seat, ledger page, clerk, door, worker, API process,
// sweeper): the counter picture, its legend and the player's strip all draw from it.
import { describe, expect, it } from 'vitest';
import { drawCounter } from '../../../src/viz/counter';
import { emptyPicture } from '../../../src/viz/counter-picture';
import { icons, iconSvg } from '../../../src/viz/icons';
import { drawLedgerStrip } from '../../../src/viz/ledger-strip';
import { session } from './sessions';

function newSvg(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  return svg;
}

const known = new Map<string, string>(Object.entries(icons).map(([name, d]) => [d, name]));

/** The icons drawn under `root`, by name, from the `d` of each `selector`. */
function iconsIn(root: Element, selector: string): string[] {
  return [...root.querySelectorAll(selector)].map((p) => {
    const name = known.get(p.getAttribute('d') ?? '');
    if (!name) throw new Error(`${selector} draws a shape that is not in the icon set`);
    return name;
  });
}

describe('the icon set', () => {
  it('has one icon for each thing the pictures name', () => {
    for (const name of ['seat', 'page', 'clerk', 'door', 'worker', 'api', 'sweeper']) {
      expect(icons).toHaveProperty(name);
    }
  });

  it('draws the counter’s clerk, door and processes, and its legend names the processes with them', () => {
    const svg = newSvg();
    drawCounter(
      svg,
      {
        ...emptyPicture(10, 3),
        seats: [
          session(1, { name: 'worker-01/claim' }),
          session(2, { name: 'api-1/pool-1', role: 'api' }),
          session(3, { name: 'sweeper', role: 'sweeper' }),
          session(4, { name: 'clerk', role: 'clerk' }),
        ],
      },
      { width: 800, reducedMotion: true },
    );
    expect(iconsIn(svg, 'path.clerk-icon')).toEqual(['clerk']);
    expect(iconsIn(svg, 'path.door-icon')).toEqual(['door']);
    expect(iconsIn(svg, 'path.group-icon').sort()).toEqual(
      ['api', 'clerk', 'seat', 'sweeper', 'worker'].sort(),
    );
    const legend = [...svg.querySelectorAll('g.legend-item')].flatMap((item) =>
      iconsIn(item, 'path.legend-icon').map((icon) => `${icon}: ${item.textContent}`),
    );
    expect(legend).toEqual(['worker: worker', 'api: API process', 'sweeper: sweeper']);
  });

  it('draws the player’s seats, pages and clerk', () => {
    const svg = newSvg();
    drawLedgerStrip(
      svg,
      {
        seats: [session(1, { state: 'idle in transaction', xid: '754', xactAgeMs: 0 }), session(2)],
        horizon: { cutoff: '754', holderPid: 1 },
      },
      { width: 600 },
    );
    expect(iconsIn(svg, 'path.seat-icon')).toEqual(['seat', 'seat']);
    expect(iconsIn(svg, 'path.page-icon')).toEqual(['page', 'page']);
    expect(iconsIn(svg, 'path.clerk-icon')).toEqual(['clerk']);
  });

  it('puts an icon inline in HTML, hidden from a screen reader unless labelled', () => {
    expect(iconSvg('door')).toContain('aria-hidden="true"');
    expect(iconSvg('door', 16, 'the "door"')).toContain('aria-label="the &quot;door&quot;"');
  });
});
