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
};

export interface StaticServer {
  /** e.g. `http://127.0.0.1:41234/` (always ends with the base path and a slash). */
  url: string;
  close(): Promise<void>;
}

/** Files a compressing host gzips on the way (`compress`). */
const compressible = new Set(['.html', '.js', '.css', '.json', '.svg', '.wasm', '.data', '.txt']);

/**
 * Serves `root` at `http://127.0.0.1:<free port><base>`. With `compress`, it answers as a
 * host that compresses does: text, `.wasm` and `.data` gzipped on the way
 * (`Content-Encoding: gzip`, no length), and a `.gz` file as the gzip encoding of what it
 * holds (as Apache's `AddEncoding gzip .gz` does), so the browser unpacks it.
 */
export async function serveStatic(
  root: string,
  base = '/',
  { compress = false }: { compress?: boolean } = {},
): Promise<StaticServer> {
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
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
      if (compress && compressible.has(extname(file))) {
        res.writeHead(200, {
          'content-type': type,
          'content-encoding': 'gzip',
          'cache-control': 'no-cache',
        });
        createReadStream(file).pipe(createGzip()).pipe(res);
        return;
      }
      const encoded = compress && file.endsWith('.tar.gz');
      res.writeHead(200, {
        'content-type': encoded ? 'application/x-tar' : type,
        ...(encoded ? { 'content-encoding': 'gzip' } : {}),
        'content-length': info.size,
        'cache-control': 'no-cache',
      });
      createReadStream(file).pipe(res);
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
