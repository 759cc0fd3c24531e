// docs/app.md's deployment section and its systemd unit
// (docs/deploy/benchbot.service): the unit parses, runs `benchbot serve` on
// loopback as an unprivileged user from an environment file, restarts on
// failure and stops with SIGTERM; where systemd-analyze is installed, the
// unit (pointed at this checkout's node and dist/benchbot.js) passes
// `systemd-analyze verify` without a warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT = readFileSync(join(ROOT, 'docs/deploy/benchbot.service'), 'utf8');

/** parseUnit reads a systemd unit file: sections of key=value lines, comments and blank lines skipped, repeated keys kept. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      return;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    assert.ok(pair && current, `line ${i + 1} is neither a section nor Key=value: ${raw}`);
    current.set(pair[1], [...(current.get(pair[1]) ?? []), pair[2]]);
  });
  return sections;
}

test('the example unit runs benchbot serve on loopback as an unprivileged user, restarts on failure, stops with SIGTERM', () => {
  const unit = parseUnit(UNIT);
  assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
  const service = unit.get('Service') as Map<string, string[]>;
  const one = (key: string) => service.get(key)?.[0];
  assert.match(one('ExecStart') ?? '', /^\/usr\/bin\/node \/opt\/benchbot\/dist\/benchbot\.js serve --host 127\.0\.0\.1 --port 3000$/);
  assert.equal(one('User'), 'benchbot');
  assert.equal(one('EnvironmentFile'), '/etc/benchbot/benchbot.env');
  assert.equal(one('Restart'), 'on-failure');
  assert.equal(one('KillSignal'), 'SIGTERM');
  assert.equal(one('NoNewPrivileges'), 'yes');
  assert.equal(one('ProtectSystem'), 'strict');
  assert.equal(unit.get('Install')?.get('WantedBy')?.[0], 'multi-user.target');
  // The environment variables the unit's comment names are the ones serve reads.
  const help = spawnSync(process.execPath, [join(ROOT, 'bin/benchbot.js'), 'serve', '--help'], { encoding: 'utf8' }).stdout;
  for (const name of ['APP_ID', 'PRIVATE_KEY_PATH', 'WEBHOOK_SECRET', 'WEBHOOK_SECRET_PREVIOUS', 'BENCHBOT_DATABASE_URL', 'LOG_LEVEL']) {
    assert.ok(UNIT.includes(name), `the unit's comment names ${name}`);
    assert.ok(help.includes(name), `serve --help documents ${name}`);
  }
});

test('systemd-analyze verify accepts the unit (pointed at this checkout), without a warning', (t) => {
  const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    // Not installable everywhere (containers without systemd): the parse above is the check then.
    t.diagnostic('systemd-analyze is not installed; the unit was parsed only');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-unit-'));
  const local = UNIT
    .replace('/usr/bin/node /opt/benchbot/dist/benchbot.js', `${process.execPath} ${join(ROOT, 'dist/benchbot.js')}`)
    // The environment file exists on the VM only; '-' makes it optional here.
    .replace('EnvironmentFile=/etc/benchbot/benchbot.env', 'EnvironmentFile=-/etc/benchbot/benchbot.env');
  const path = join(dir, 'benchbot.service');
  writeFileSync(path, local);
  const verify = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
  const warnings = `${verify.stdout}${verify.stderr}`.split('\n').filter((l) => l.includes('benchbot.service'));
  assert.equal(verify.status, 0, `${verify.stdout}${verify.stderr}`);
  assert.deepEqual(warnings, [], 'no warning about the unit');
  // The check would see a mistake: an unknown key is reported.
  writeFileSync(path, local.replace('Restart=on-failure', 'Restrt=on-failure'));
  const bad = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
  assert.match(`${bad.stdout}${bad.stderr}`, /Unknown key 'Restrt'/);
});

test('docs/app.md has the deployment section: the unit, the proxy, PostgreSQL for replicas, health, logs, both rotations', () => {
  const doc = readFileSync(join(ROOT, 'docs/app.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Deployment'), doc.indexOf('## Rate limits and retries'));
  assert.ok(section.length > 1000, 'a Deployment section before Rate limits');
  for (const needle of ['Node.js 24', 'deploy/benchbot.service', 'reverse proxy', 'PostgreSQL', '/healthz', 'journalctl', '### Rotating the webhook secret', 'WEBHOOK_SECRET_PREVIOUS', '### Rotating the private key']) {
    assert.ok(section.includes(needle), `the deployment section mentions ${needle}`);
  }
});
