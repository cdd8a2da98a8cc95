/**
 * Each demo's height once it shows its first output, measured in the built site by
 * `npm run measure` at three viewport widths (src/components/demo-heights.json). A demo's
 * placeholder takes it, per width, so a page keeps the demo's place while the engine
 * starts and nothing below it jumps when it appears.
 */
import measured from './demo-heights.json' with { type: 'json' };

/** The viewports measured, as [width, height]: a phone, a tablet, a laptop. */
export const measuredWidths = [
  [360, 740],
  [768, 1024],
  [1280, 800],
] as const;

/**
 * The CSS custom properties that size `demo`'s placeholder (site.css picks one per
 * viewport width), or none for a demo not measured yet.
 */
export function placeholderStyle(demo: string): Record<string, string> {
  const heights = (measured as Record<string, Record<string, number>>)[demo];
  if (!heights) return {};
  const style: Record<string, string> = {};
  for (const [width] of measuredWidths) {
    const h = heights[String(width)];
    if (h !== undefined) style[`--demo-height-${width}`] = `${h}px`;
  }
  return style;
}
