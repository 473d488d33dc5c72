// Starts a redis-server with folio loaded on a free loopback port, like tests/clients/conftest.py.
// A missing redis-server or module build is a loud failure.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// FOLIO_SERVER: another host (`make test SERVER=...`: Redis 7.4, Valkey 8 built elsewhere).
const SERVER = process.env.FOLIO_SERVER || 'redis-server';
export const MODULE = path.resolve(here, '..', '..', '..', 'target', 'release', 'libfolio.so');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => { sock.destroy(); resolve(d.toString().startsWith('+PONG')); });
    sock.on('error', () => resolve(false));
  });
}

/** Starts the server; resolves to { port, url, stop() }. */
export async function startServer() {
  if (spawnSync(SERVER, ['--version']).status !== 0) {
    throw new Error(`${SERVER} is not on PATH (make setup installs redis-server), or FOLIO_SERVER is wrong`);
  }
  if (!existsSync(MODULE)) {
    throw new Error(`${MODULE} is missing: run cargo build --release first`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'folio-node-'));
  const port = await freePort();
  const log = path.join(dir, 'redis.log');
  const child = spawn(SERVER, [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--dir', dir, '--logfile', log, '--enable-debug-command', 'local', '--loadmodule', MODULE,
    ...(process.env.FOLIO_MODULE_ARGS || '').split(/\s+/).filter(Boolean),
  ], { stdio: 'ignore' });
  let exited = false;
  child.on('exit', () => { exited = true; });
  const deadline = Date.now() + 10000;
  while (!(await ping(port))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
      throw new Error(`redis-server with folio did not start; log:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    alive: () => !exited,
    stop: async () => {
      if (!exited) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
