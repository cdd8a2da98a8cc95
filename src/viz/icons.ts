/**
 * The site's one icon set, as SVG path data in a 16 × 16 box, drawn with a stroke of the
 * text's colour and no fill unless said: the counter picture draws its clerk, door,
 * processes and legend with these, and any page may put them inline (`iconSvg`). Each
 * icon is a plain outline, legible at 12 px and in both themes.
 */
export const icons = {
  /** A seat: a connection. */
  seat: 'M3 2v8h10V2M2 10h12M4 10v4M12 10v4',
  /** A ledger page with a folded corner: a transaction. */
  page: 'M3 1.5h7l3 3v10H3ZM10 1.5v3h3M5 7h6M5 9.5h6M5 12h4',
  /** The clerk: a person behind a desk (VACUUM). */
  clerk: 'M8 2.5a2.5 2.5 0 1 1 0 5a2.5 2.5 0 1 1 0-5ZM3.5 12.5a4.5 4 0 0 1 9 0M1 12.5h14v2.5H1Z',
  /** The door: a frame, a half-open leaf and its handle. */
  door: 'M2.5 15V1.5h11V15M2.5 15h11M5 3.5l6 -1v12l-6 0.5ZM9.5 8.5v1',
  /** A worker process: a gear. */
  worker:
    'M8 5a3 3 0 1 1 0 6a3 3 0 1 1 0-6ZM8 1v2.5M8 12.5V15M1 8h2.5M12.5 8H15M3 3l1.8 1.8M11.2 11.2L13 13M3 13l1.8-1.8M11.2 4.8L13 3',
  /** An API process: a server with two drive bays. */
  api: 'M2 2.5h12v4.5H2ZM2 9h12v4.5H2ZM4.5 4.75h1M4.5 11.25h1M9 4.75h3M9 11.25h3',
  /** The sweeper: a broom. */
  sweeper: 'M12.5 1.5L7.5 8.5M5 8l5 3.5-3 3.5L2 11.5Z',
  /** Someone else: a person. */
  person: 'M8 2a2.5 2.5 0 1 1 0 5a2.5 2.5 0 1 1 0-5ZM3 14.5a5 4.5 0 0 1 10 0',
} as const;

export type IconName = keyof typeof icons;

/** An inline `<svg>` of one icon, for HTML: decorative unless given a label. */
export function iconSvg(name: IconName, size = 16, label?: string): string {
  const a11y = label
    ? `role="img" aria-label="${label.replace(/"/g, '&quot;')}"`
    : 'aria-hidden="true"';
  return `<svg class="icon icon-${name}" width="${size}" height="${size}" viewBox="0 0 16 16" ${a11y}><path d="${icons[name]}" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linejoin="round" stroke-linecap="round"/></svg>`;
}
