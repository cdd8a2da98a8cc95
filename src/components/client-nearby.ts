// `client:nearby`, the way every demo island hydrates on a page: once the page has painted
// its first content, and the island is within `margin` (200px) of the viewport. Astro's
// `client:visible` alone may fetch an island that is on screen at load before the first
// paint (its observer can fire first), putting the island's scripts (hundreds of KB) ahead
// of the text a reader came for. Astro inlines this file into each page that uses it, so it
// imports nothing.
import type { ClientDirective } from 'astro';

/** How near the viewport an island must come to hydrate. */
const margin = '200px';

/**
 * Calls `then` once the page's first contentful paint is reported, or after `ms` if none is
 * (a page in a background tab, a browser without Paint Timing): nothing waits for ever.
 */
function afterFirstPaint(then: () => void, ms = 3000): void {
  let done = false;
  let observer: PerformanceObserver | undefined;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    observer?.disconnect();
    then();
  };
  const timer = setTimeout(once, ms);
  try {
    observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName('first-contentful-paint').length) once();
    });
    observer.observe({ type: 'paint', buffered: true });
  } catch {
    once();
  }
}

const nearby: ClientDirective = (load, _options, el) => {
  afterFirstPaint(() => {
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        void load().then((hydrate) => hydrate());
      },
      { rootMargin: margin },
    );
    // <astro-island> is `display: contents`: watch what it holds.
    for (const child of el.children) observer.observe(child);
  });
};

export default nearby;
