// SPEC 7: every key documented, overridable by its environment variable,
// and a bad value stops start-up naming the key, the problem and the form.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, describeKeys, envNameOf, loadConfig } from '../../src/config/index.js';

function loadError(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('config (SPEC 7)', () => {
  it('defaults run against the simulator with the configured nodes', () => {
    const config = loadConfig({ env: {} });
    expect(config.proxmox.url).to.equal('sim');
    expect(config.proxmox.tag).to.equal('pve_provisioner');
    expect(config.proxmox.nodes.map((n) => n.name)).to.deep.equal(['pve1', 'pve2']);
    expect(config.redis.url).to.equal('redis://127.0.0.1:6379');
  });

  it('names every variable after its key in upper snake case', () => {
    expect(envNameOf('proxmox.url')).to.equal('PROXMOX_URL');
    expect(envNameOf('redis.prefix')).to.equal('REDIS_PREFIX');
    expect(envNameOf('http.port')).to.equal('HTTP_PORT');
    expect(envNameOf('sim.port')).to.equal('SIM_PORT');
    expect(envNameOf('proxmox.vmidRange.min')).to.equal('PROXMOX_VMID_RANGE_MIN');
  });

  it('documents every key with a doc, a default and its variable', () => {
    const keys = describeKeys();
    expect(keys.length).to.be.greaterThan(50);
    for (const key of keys) {
      expect(key.doc, key.path).to.be.a('string').and.not.equal('');
      expect(key.env, key.path).to.equal(envNameOf(key.path));
      expect(key.default, key.path).to.not.equal(undefined);
    }
  });

  it('has every key in the README reference (npx tsx scripts/readme-config.ts regenerates it)', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const key of describeKeys()) expect(readme, key.path).to.include(`| \`${key.path}\` | \`${key.env}\` |`);
  });

  it('lets environment variables override defaults, including nested and list keys', () => {
    const config = loadConfig({
      env: {
        HTTP_PORT: '9090',
        PROXMOX_VMID_RANGE_MIN: '200000',
        RECONCILER_RECREATE_MISSING: 'false',
        PROXMOX_NODES: '[{"name":"pv1-1","template":9001,"isoStorage":"proxy-seeds","vlanTag":4}]',
      },
    });
    expect(config.http.port).to.equal(9090);
    expect(config.proxmox.vmidRange.min).to.equal(200000);
    expect(config.reconciler.recreateMissing).to.equal(false);
    expect(config.proxmox.nodes).to.deep.equal([{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds', vlanTag: 4 }]);
  });

  it('takes a template on another node as {vmid, node} (SPEC 23)', () => {
    const nodes = [
      { name: 'pve1', template: 9200, isoStorage: 'proxy-seeds' },
      { name: 'pve2', template: { vmid: 9200, node: 'pve1' }, isoStorage: 'proxy-seeds' },
    ];
    expect(loadConfig({ env: { PROXMOX_NODES: JSON.stringify(nodes) } }).proxmox.nodes).to.deep.equal(nodes);
  });

  it('gives each default node its own template VMID: a VMID is unique across a cluster (SPEC 23)', () => {
    const templates = loadConfig({ env: {} }).proxmox.nodes.map((n) => n.template);
    expect(new Set(templates).size).to.equal(templates.length);
  });

  it('loads PVE_PROVISIONER_CONFIG over the defaults, with the environment winning over the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-config-'));
    try {
      const file = join(dir, 'prod.json');
      writeFileSync(file, JSON.stringify({ proxmox: { url: 'https://pve.example:8006' }, http: { port: 9000 } }));
      const config = loadConfig({ env: { PVE_PROVISIONER_CONFIG: file, HTTP_PORT: '9100' } });
      expect(config.proxmox.url).to.equal('https://pve.example:8006');
      expect(config.http.port).to.equal(9100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts the production example', () => {
    const config = loadConfig({ env: { PVE_PROVISIONER_CONFIG: 'config/example.production.json' } });
    expect(config.proxmox.nodes[0]?.vlanTag).to.equal(4);
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['plain http to a remote host', { PROXMOX_URL: 'http://10.0.0.1:8006' }, /proxmox\.url: plain http:\/\/ is only allowed for loopback.*allowed: "sim", https:\/\//],
    ['a non-URL', { PROXMOX_URL: 'pve.example' }, /proxmox\.url: is not a URL; allowed/],
    ['a VMID below 100', { PROXMOX_VMID_RANGE_MIN: '5' }, /proxmox\.vmidRange\.min: must be a VMID, an integer from 100 to 999999999/],
    ['min above max', { PROXMOX_VMID_RANGE_MIN: '900', PROXMOX_VMID_RANGE_MAX: '800' }, /proxmox\.vmidRange: min \(900\) is above max \(800\)/],
    ['a node without isoStorage', { PROXMOX_NODES: '[{"name":"a","template":9001}]' }, /proxmox\.nodes: entry 0 \(a\): isoStorage is required/],
    ['a VLAN tag out of range', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","vlanTag":5000}]' }, /vlanTag must be an integer from 1 to 4094/],
    ['an unknown node key', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","vlan":5}]' }, /unknown key "vlan"/],
    ['a template that is neither a VMID nor {vmid, node}', { PROXMOX_NODES: '[{"name":"a","template":"9001","isoStorage":"s1"}]' }, /entry 0 \(a\): template must be a VMID .* or \{"vmid": N, "node": "NODE"\}/],
    ['a template on another node without its node', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":9001},"isoStorage":"s1"}]' }, /entry 0 \(a\): template\.node must be a Proxmox node name/],
    ['a template on another node with a bad VMID', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":5,"node":"b"},"isoStorage":"s1"}]' }, /entry 0 \(a\): template\.vmid must be a VMID/],
    ['a template with an unknown key', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":9001,"node":"b","pool":"x"},"isoStorage":"s1"}]' }, /entry 0 \(a\): template has unknown key "pool"/],
    ['a port out of range', { HTTP_PORT: '99999' }, /http\.port: ports must be within range 0 - 65535/],
    ['a tag Proxmox would refuse or fold', { PROXMOX_TAG: 'Bad Tag' }, /proxmox\.tag: must be a Proxmox tag: lowercase letters/],
    ['a word for a number', { JOBS_ATTEMPTS: 'many' }, /jobs\.attempts: must be a whole number of at least 1/],
    ['a redis URL of another scheme', { REDIS_URL: 'http://127.0.0.1:6379' }, /redis\.url: has scheme http:; allowed: redis:\/\//],
    ['a prefix with a colon', { REDIS_PREFIX: 'a:b' }, /redis\.prefix: must be 1 to 64 of letters/],
    ['a default above its limit', { PROXMOX_DEFAULTS_CORES: '64', PROXMOX_LIMITS_MAX_CORES: '8' }, /proxmox\.defaults\.cores \(64\) is above proxmox\.limits\.maxCores \(8\)/],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming the key and the allowed form`, () => {
      expect(loadError(env)).to.match(/^invalid configuration: /).and.match(message);
    });
  }

  it('refuses a key the schema does not know in a config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-config-'));
    try {
      const file = join(dir, 'typo.json');
      writeFileSync(file, JSON.stringify({ proxmox: { tokenfile: '/x' } }));
      expect(loadError({ PVE_PROVISIONER_CONFIG: file })).to.match(/configuration param 'proxmox\.tokenfile' not declared in the schema/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
