// The prepared data directory (scripts/build-datadir.ts) written into PGlite's in-memory file
// system as PostgreSQL's module starts, in place of PGlite's `loadDataDir`. That one gunzips
// the tar in the worker, reads it with checksums, copies every file out of it and copies it
// again into the file system: about half a second of a worker's boot in Chromium, most of the
// whole boot's time after the download. Here the page gunzips the tar as it downloads
// (client.ts), and each file of the file system is a view into the one buffer, not a copy.
import { MemoryFS } from '@electric-sql/pglite';

/** One file or directory of a tar archive; `data` is a view into the archive's bytes. */
export interface TarEntry {
  /** Relative to the archive's root, without a leading or trailing slash. */
  path: string;
  kind: 'file' | 'directory';
  data: Uint8Array;
  /** Modification time, in seconds since 1970. */
  mtime: number;
}

const block = 512;
const ascii = new TextDecoder('latin1');

function text(bytes: Uint8Array, from: number, length: number): string {
  const field = bytes.subarray(from, from + length);
  const end = field.indexOf(0);
  return ascii.decode(end === -1 ? field : field.subarray(0, end));
}

function octal(bytes: Uint8Array, from: number, length: number): number {
  const digits = text(bytes, from, length).trim();
  return digits ? parseInt(digits, 8) : 0;
}

/** Whether `bytes` start as gzip does (RFC 1952's magic number). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The files and directories of a ustar archive (as PGlite's `dumpDataDir` writes), without
 * copying their contents. Other kinds of entry (links, devices) are left out: a data
 * directory has none. Throws on a header whose checksum is wrong, so a damaged download
 * fails here, not inside PostgreSQL.
 */
export function readTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  for (;;) {
    if (offset + block > bytes.length)
      throw new Error('The data directory’s archive is cut short.');
    const header = bytes.subarray(offset, offset + block);
    if (header.every((b) => b === 0)) return entries; // the end-of-archive blocks
    let sum = 0;
    for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
    if (sum !== octal(header, 148, 8)) {
      throw new Error(`The data directory’s archive is damaged (at byte ${offset}).`);
    }
    const name = text(header, 0, 100);
    // POSIX ustar keeps the start of a long name in `prefix`; old GNU tar has other fields there.
    const prefix = text(header, 257, 6) === 'ustar' ? text(header, 345, 155) : '';
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const start = offset + block;
    if (start + size > bytes.length) {
      throw new Error('The data directory’s archive is cut short.');
    }
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^\/+|\/+$/g, '');
    const kind = type === '5' ? 'directory' : type === '0' || type === '\0' ? 'file' : null;
    if (kind && path) {
      entries.push({
        path,
        kind,
        data: bytes.subarray(start, start + size),
        mtime: octal(header, 136, 12),
      });
    }
    offset = start + Math.ceil(size / block) * block;
  }
}

/** A node of Emscripten's in-memory file system (MEMFS), as the loader fills it in. */
interface MemNode {
  contents: Record<string, MemNode> | Uint8Array;
  usedBytes?: number;
  atime: number;
  mtime: number;
  ctime: number;
}

/** What of Emscripten's file systems the loader uses. */
interface EmscriptenFS {
  mkdirTree(path: string, mode?: number): void;
  lookupPath(path: string): { node: MemNode };
}
interface EmscriptenMemFS {
  createNode(parent: MemNode, name: string, mode: number, dev: number): MemNode;
}

type ModuleOptions = Parameters<MemoryFS['init']>[1];
type StartingModule = { FS: EmscriptenFS; MEMFS: EmscriptenMemFS; ENV: Record<string, string> };

/** A directory and a regular file, as `mode` bits (what FS.mkdir and FS.writeFile give). */
const directoryMode = 0o40777;
const fileMode = 0o100666;

/**
 * Writes `entries` under `root` (a directory of the in-memory file system): each file a
 * view of its bytes, with its modification time. Nodes are made under their parent's
 * node, not by path: Emscripten's path calls (`writeFile`, `utime`) look every component
 * up again and took 120-170 ms of CPU for the directory's thousand entries in Node, and
 * more of a worker's boot in Chromium; this takes about 15.
 */
export function writeEntries(mod: StartingModule, root: string, entries: TarEntry[]): void {
  mod.FS.mkdirTree(root);
  const directories = new Map<string, MemNode>([['', mod.FS.lookupPath(root).node]]);
  /** The node that holds `path`'s last component, and that component. */
  const place = (path: string): [MemNode, string] => {
    const cut = path.lastIndexOf('/');
    return [directory(cut < 0 ? '' : path.slice(0, cut)), path.slice(cut + 1)];
  };
  const directory = (path: string): MemNode => {
    let node = directories.get(path);
    if (!node) {
      const [parent, name] = place(path);
      node =
        (parent.contents as Record<string, MemNode>)[name] ??
        mod.MEMFS.createNode(parent, name, directoryMode, 0);
      directories.set(path, node);
    }
    return node;
  };
  for (const entry of entries) {
    let node: MemNode;
    if (entry.kind === 'directory') {
      node = directory(entry.path);
    } else {
      node = mod.MEMFS.createNode(...place(entry.path), fileMode, 0);
      node.contents = entry.data;
      node.usedBytes = entry.data.byteLength;
    }
    node.atime = node.mtime = node.ctime = entry.mtime * 1000;
  }
}

/**
 * PGlite's in-memory file system with the data directory `entries` already in place when
 * PostgreSQL starts, so PGlite resumes it rather than running initdb.
 */
export class PreparedDataDirFS extends MemoryFS {
  private readonly entries: TarEntry[];

  constructor(entries: TarEntry[]) {
    super();
    this.entries = entries;
  }

  override async init(pg: Parameters<MemoryFS['init']>[0], options: ModuleOptions) {
    const { emscriptenOpts } = await super.init(pg, options);
    const load = (mod: StartingModule) => {
      // PGlite sets PGDATA in an earlier step of the same list.
      writeEntries(mod, mod.ENV.PGDATA ?? '/pglite/data', this.entries);
    };
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [...(emscriptenOpts.preRun ?? []), load as never],
      },
    };
  }
}
