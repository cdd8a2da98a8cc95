// A scenario in a link: its YAML, compressed (zlib's deflate, whose Adler-32 checksum
// shows a link that was changed or cut short) and written in base64url after `#s=1.`.
// The fragment never reaches a server. Nothing here throws: a link that cannot be read
// gives a problem of a known kind, worded for people by `describeLinkProblem`.

/** The link format's version, the `1` of `#s=1.…`. */
export const LINK_VERSION = 1;

/** At most this many characters after the `#`: 8 KB, short enough for any browser and chat. */
export const MAX_FRAGMENT_CHARS = 8192;

/** At most this many bytes of YAML once unpacked, so a small link cannot unpack into a flood. */
export const MAX_UNPACKED_BYTES = 64 * 1024;

/** Why a link's scenario could not be read. */
export type LinkProblem =
  /** The address has no `s=` in its fragment. */
  | { kind: 'missing' }
  /** The fragment is longer than `MAX_FRAGMENT_CHARS`. */
  | { kind: 'too-long'; chars: number; limit: number }
  /** The link names a format this page does not read. */
  | { kind: 'version'; version: string }
  /** The characters after the version are not base64url. */
  | { kind: 'not-base64' }
  /** The data does not unpack: the link was changed or cut short after it was made. */
  | { kind: 'damaged' }
  /** It would unpack to more than `MAX_UNPACKED_BYTES`. */
  | { kind: 'too-large'; limit: number };

export type LinkReading = { ok: true; source: string } | { ok: false; problem: LinkProblem };

/** The fragment (without `#`) that carries `source`, or the problem: too long for a link. */
export async function encodeScenarioLink(
  source: string,
): Promise<{ ok: true; fragment: string } | { ok: false; problem: LinkProblem }> {
  const packed = await through(new TextEncoder().encode(source), new CompressionStream('deflate'));
  const fragment = `s=${LINK_VERSION}.${toBase64Url(packed)}`;
  if (fragment.length > MAX_FRAGMENT_CHARS)
    return {
      ok: false,
      problem: { kind: 'too-long', chars: fragment.length, limit: MAX_FRAGMENT_CHARS },
    };
  return { ok: true, fragment };
}

/** Reads the scenario's YAML out of `hash` (`location.hash`, with or without its `#`). */
export async function decodeScenarioLink(hash: string): Promise<LinkReading> {
  const fragment = hash.replace(/^#/, '');
  if (fragment.length > MAX_FRAGMENT_CHARS)
    return problem({ kind: 'too-long', chars: fragment.length, limit: MAX_FRAGMENT_CHARS });
  const value = new URLSearchParams(fragment).get('s');
  if (value === null || value === '') return problem({ kind: 'missing' });
  const dot = value.indexOf('.');
  const version = dot < 0 ? value : value.slice(0, dot);
  if (version !== String(LINK_VERSION)) return problem({ kind: 'version', version });
  const bytes = fromBase64Url(value.slice(dot + 1));
  if (!bytes) return problem({ kind: 'not-base64' });
  let unpacked: Uint8Array;
  try {
    unpacked = await through(bytes, new DecompressionStream('deflate'), MAX_UNPACKED_BYTES);
  } catch (error) {
    if (error instanceof TooLarge) return problem({ kind: 'too-large', limit: MAX_UNPACKED_BYTES });
    return problem({ kind: 'damaged' });
  }
  try {
    return { ok: true, source: new TextDecoder('utf-8', { fatal: true }).decode(unpacked) };
  } catch {
    return problem({ kind: 'damaged' });
  }
}

/** The words a page shows for `problem`. */
export function describeLinkProblem(problem: LinkProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'This address carries no scenario: it should end with #s= and the scenario’s data.';
    case 'too-long':
      return `This link is ${problem.chars} characters long after the #, over the limit of ${problem.limit}, so it was not read.`;
    case 'version':
      return `This link was made in format ${problem.version}, and this page reads format ${LINK_VERSION}. Make the link again in the lab.`;
    case 'not-base64':
      return 'This link’s data holds characters a link made by the lab never has: it was changed after it was made.';
    case 'damaged':
      return 'This link’s data does not unpack: it was cut short or changed after it was made. Copy the whole link again.';
    case 'too-large':
      return `This link would unpack into more than ${problem.limit / 1024} KB of scenario, so it was not read.`;
  }
}

function problem(p: LinkProblem): LinkReading {
  return { ok: false, problem: p };
}

class TooLarge extends Error {}

/** `bytes` through a compression stream; more than `limit` bytes out throws TooLarge. */
async function through(
  bytes: Uint8Array,
  stream: CompressionStream | DecompressionStream,
  limit = Infinity,
): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(stream).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new TooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
