import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

/** SSHD is the OpenSSH server binary; BENCHBOT_SSHD overrides it. */
export const SSHD = process.env.BENCHBOT_SSHD ?? '/usr/sbin/sshd';

/** SshServer is a throwaway OpenSSH server on 127.0.0.1 that lets the current user in with a fresh key. */
export interface SshServer {
  host: string;
  port: number;
  user: string;
  /** Private key the server accepts. */
  identity: string;
  /** known_hosts file that already holds the server's host key. */
  knownHosts: string;
  /** A scratch directory the tests may use (removed by stop). */
  dir: string;
  stop(): Promise<void>;
}

/**
 * startSshd starts `sshd -D` on a free loopback port with its own host key,
 * an authorized_keys file holding a fresh client key, StrictModes off (the
 * files live in a temporary directory) and no PAM, as the current user. It
 * throws, naming the package to install, when the server or ssh-keygen is
 * missing: the ssh executor is tested against a real server, never skipped.
 */
export async function startSshd(): Promise<SshServer> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} not found: install the openssh-server package (apt-get install openssh-server) or set BENCHBOT_SSHD`);
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) throw new Error('ssh-keygen not found: install the openssh-client package (apt-get install openssh-client)');
  const dir = mkdtempSync('/tmp/bb-sshd-');
  let server: ChildProcess | undefined;
  try {
    const keygen = (file: string): void => {
      const run = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'benchbot-test', '-f', file], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`ssh-keygen failed: ${run.stderr}`);
    };
    const hostKey = join(dir, 'host_ed25519');
    const identity = join(dir, 'client_ed25519');
    keygen(hostKey);
    keygen(identity);
    writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${identity}.pub`));
    const port = await freePort();
    const user = userInfo().username;
    writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `AllowUsers ${user}`,
        'StrictModes no',
        'UsePAM no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'MaxSessions 100',
        'MaxStartups 100',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    // As root, sshd insists on its privilege separation directory.
    if (userInfo().uid === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const log: string[] = [];
    server = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    server.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    const exited = new Promise<never>((_, reject) => server!.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${log.join('')}`))));
    await Promise.race([waitForBanner(port, 10_000), exited]);
    const running = server;
    return {
      host: '127.0.0.1',
      port,
      user,
      identity,
      knownHosts: join(dir, 'known_hosts'),
      dir,
      async stop() {
        if (running.exitCode === null && running.signalCode === null) {
          const gone = new Promise((done) => running.once('exit', done));
          running.kill('SIGTERM');
          await gone;
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function waitForBanner(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (data) => {
        socket.destroy();
        done(data.toString().startsWith('SSH-'));
      });
      socket.once('error', () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not answer on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
