// SPEC 6, 24, 27: docker-compose.yml publishes on the host's loopback
// only, restarts Redis, gives the worker longer to stop than the jobs.shutdownGraceSeconds it runs with (so Docker's
// SIGKILL never cuts the grace short), and mounts the secrets volume
// read-only everywhere but in `init`, which writes it and creates every
// secret file the services are pointed at.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { loadConfig } from '../../src/config/index.js';

interface Service {
  restart?: string;
  stop_grace_period?: string;
  command?: string | string[];
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string | number | boolean>;
}
interface Compose {
  services: Record<string, Service>;
}

// Compose files use YAML 1.1 merge keys (`<<: *app`); js-yaml's 1.2 schema needs the tag added.
const compose = load(readFileSync(join(import.meta.dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as Compose;

function service(name: string): Service {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** A compose duration (Go's form: 90s, 1m30s, 2m) in seconds. */
function seconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  if (parts.map((p) => p[0]).join('') !== duration) throw new Error(`not a compose duration: ${duration}`);
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 };
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * (unit[u ?? 's'] ?? 0), 0);
}

/** The `secrets` volume's mount of a service: its target and whether it is read-only. */
function secretsMount(name: string): { target: string; readOnly: boolean } | undefined {
  const mount = (service(name).volumes ?? []).find((v) => v.startsWith('secrets:'));
  if (mount === undefined) return undefined;
  const [, target = '', mode = ''] = mount.split(':');
  return { target, readOnly: mode.split(',').includes('ro') };
}

describe('docker-compose.yml (SPEC 6, 27)', () => {
  it('restarts Redis unless it was stopped', () => {
    expect(service('redis').restart).to.equal('unless-stopped');
  });

  it("gives the worker longer to stop than the jobs.shutdownGraceSeconds it runs with, and room for the close after it", () => {
    const environment = Object.fromEntries(Object.entries(service('worker').environment ?? {}).map(([k, v]) => [k, String(v)]));
    const grace = loadConfig({ env: environment }).jobs.shutdownGraceSeconds;
    const period = service('worker').stop_grace_period;
    expect(period, 'worker stop_grace_period').to.be.a('string');
    // After the grace the worker cancels what still runs, waits a second for it, closes Redis and exits: 10 s covers it.
    expect(seconds(period ?? '0s')).to.be.at.least(grace + 10);
  });

  it('publishes no port beyond the host\'s loopback (SPEC 24)', () => {
    const published = Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((port) => ({ name, port })));
    expect(published.map((p) => p.name)).to.include('web');
    for (const { name, port } of published) expect(port, name).to.match(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('mounts the secrets volume read-only on sim, worker and web; only init writes it', () => {
    for (const name of ['sim', 'worker', 'web']) expect(secretsMount(name), name).to.deep.equal({ target: '/var/lib/pve-provisioner', readOnly: true });
    expect(secretsMount('init')).to.deep.equal({ target: '/var/lib/pve-provisioner', readOnly: false });
    const writers = Object.keys(compose.services).filter((name) => secretsMount(name)?.readOnly === false);
    expect(writers).to.deep.equal(['init']);
  });

  it('init creates, at mode 0600, every secret file the web and worker are pointed at in the volume (a web outside the simulator refuses to start without one)', () => {
    const init = [service('init').command ?? []].flat().join('\n');
    for (const name of ['worker', 'web']) {
      const files = Object.entries(service(name).environment ?? {})
        .filter(([key, value]) => key.endsWith('_FILE') && String(value).startsWith('/var/lib/pve-provisioner/'))
        .map(([, value]) => String(value).slice('/var/lib/pve-provisioner/'.length));
      expect(files, name).to.include.members(['api-tokens', 'board-users', 'proxmox-token', 'fingerprint-key']);
      for (const file of files) {
        expect(init, `${name}: ${file}`).to.include(`[ -s ${file} ]`);
        expect(init, `${name}: ${file}`).to.match(new RegExp(`chmod 600 [^\n]*\\b${file}\\b`));
      }
    }
  });
});
