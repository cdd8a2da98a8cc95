// `/manifest.webmanifest`: the web app manifest, built so that its addresses follow
// BASE_PATH and its colours are the stylesheet's own (site-colours.ts).
import type { APIRoute } from 'astro';
import { themeColours } from '../components/site-colours';
import { sitePath } from '../components/site-url';

export const GET: APIRoute = () => {
  const light = themeColours('light');
  const manifest = {
    name: 'Seat & Ledger',
    short_name: 'Seat & Ledger',
    description:
      'Job queues on PostgreSQL, and why they go wrong, on a real PostgreSQL 18 running in your browser.',
    lang: 'en',
    start_url: sitePath(),
    scope: sitePath(),
    display: 'standalone',
    background_color: light.background,
    theme_color: light.background,
    icons: [
      { src: sitePath('favicon.svg'), type: 'image/svg+xml', sizes: 'any' },
      { src: sitePath('icon-192.png'), type: 'image/png', sizes: '192x192' },
      { src: sitePath('icon-512.png'), type: 'image/png', sizes: '512x512' },
    ],
  };
  return new Response(`${JSON.stringify(manifest, null, 2)}\n`, {
    headers: { 'content-type': 'application/manifest+json' },
  });
};
