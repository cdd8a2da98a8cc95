// A demo's oEmbed file (oembed.com, section 2.3.4: a `rich` response), generated at build
// time from the demo registry, so that a CMS that discovers oEmbed on a demo's page
// (`<link rel="alternate" type="application/json+oembed">`) embeds the demo itself.
import { embedSnippet } from './embed-snippet';
import { sitePath } from './site-url';
import { thumbnailSize } from './thumbnail';

/** The provider's name in every oEmbed file. */
export const providerName = 'Seat & Ledger';

/** The width the oEmbed `html` is given, in pixels; its iframe stretches to its column. */
export const oembedWidth = 800;

/** The fields of a `rich` oEmbed response the site writes. */
export interface OEmbedRich {
  type: 'rich';
  version: '1.0';
  title: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  thumbnail_url: string;
  thumbnail_width: number;
  thumbnail_height: number;
}

/** Where a demo's oEmbed file (`json`) and thumbnail (`png`) are, under the site's base. */
export function oembedPath(id: string, ext: 'json' | 'png'): string {
  return sitePath(`oembed/${id}.${ext}`);
}

/** The oEmbed file of a demo, its addresses absolute under `site`. */
export function oembedFor(
  demo: { id: string; title: string; embedHeight: number },
  site: URL,
): OEmbedRich {
  const absolute = (path: string) => new URL(path, site).href;
  const snippet = embedSnippet({
    src: absolute(sitePath(`embed/${demo.id}/`)),
    title: demo.title,
    height: demo.embedHeight,
  });
  return {
    type: 'rich',
    version: '1.0',
    title: demo.title,
    provider_name: providerName,
    provider_url: absolute(sitePath()),
    // The iframe alone: the pages that embed oEmbed HTML often drop scripts.
    html: snippet.slice(0, snippet.indexOf('</iframe>') + '</iframe>'.length),
    width: oembedWidth,
    height: demo.embedHeight,
    thumbnail_url: absolute(oembedPath(demo.id, 'png')),
    thumbnail_width: thumbnailSize.width,
    thumbnail_height: thumbnailSize.height,
  };
}
