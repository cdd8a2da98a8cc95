// Serves the built site (dist/) on a loopback port for browser tests and benchmarks,
// under a base path, with the content types and lengths a static host would send.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { createGzip } from 'node:zlib';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.data': 'application/octet-stream',
  '.gz': 'application/gzip',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.webmanifest': 'application/manifest+json',
};

export interface StaticServer {
  /** e.g. `http://127.0.0.1:41234/` (always ends with the base path and a slash). */
  url: string;
  close(): Promise<void>;
}

/** Files a compressing host gzips on the way (`compress`). */
const compressible = new Set(['.html', '.js', '.css', '.json', '.svg', '.wasm', '.data', '.txt']);

/** What a host adds: headers per path, and where a POST's body goes (e.g. a CSP report). */
export interface HostOptions {
  headers?: (path: string) => Record<string, string>;
  onPost?: (path: string, body: string) => void;
  /**
   * Answer as a host that compresses does: text, `.wasm` and `.data` gzipped on the way
   * (`Content-Encoding: gzip`, no length), and a `.gz` file as the gzip encoding of what
   * it holds (as Apache's `AddEncoding gzip .gz` does), so the browser unpacks it.
   */
  compress?: boolean;
}

/** Serves `root` at `http://127.0.0.1:<free port><base>`. */
export async function serveStatic(
  root: string,
  base = '/',
  host: HostOptions = {},
): Promise<StaticServer> {
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method === 'POST' && host.onPost) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      host.onPost(path, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
      return;
    }
    if (!path.startsWith(base)) {
      res.writeHead(404).end('not found');
      return;
    }
    let file = normalize(join(root, path.slice(base.length)));
    if (!file.startsWith(normalize(root))) {
      res.writeHead(403).end();
      return;
    }
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      const type = types[extname(file)] ?? 'application/octet-stream';
      const gzipped = host.compress === true && compressible.has(extname(file));
      const encoded = host.compress === true && file.endsWith('.tar.gz');
      res.writeHead(200, {
        'content-type': encoded ? 'application/x-tar' : type,
        ...(gzipped || encoded ? { 'content-encoding': 'gzip' } : {}),
        ...(gzipped ? {} : { 'content-length': info.size }),
        'cache-control': 'no-cache',
        ...host.headers?.(path),
      });
      const body = createReadStream(file);
      if (gzipped) body.pipe(createGzip()).pipe(res);
      else body.pipe(res);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${base}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
