// SPEC 7: every key documented, overridable by its environment variable,
// and a bad value stops start-up naming the key, the problem and the form.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKeys, envNameOf, loadConfig } from '../../src/config/index.js';
import { loadError } from '../support/config-error.js';
import { imagesOf } from '../../src/config/images.js';
import { configReferenceTable, README_TABLE } from '../../scripts/config-reference.js';

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

  it('has the schema in the README reference, every row with its default and doc (npx tsx scripts/readme-config.ts regenerates it)', () => {
    const readme = README_TABLE.exec(readFileSync('README.md', 'utf8'))?.[1]?.split('\n') ?? [];
    const schema = configReferenceTable().split('\n');
    // The rows that differ first, so a failure shows the stale row and the schema's, not two long lists.
    expect({ onlyInReadme: readme.filter((row) => !schema.includes(row)), onlyInSchema: schema.filter((row) => !readme.includes(row)) }).to.deep.equal({ onlyInReadme: [], onlyInSchema: [] });
    expect(readme).to.deep.equal(schema);
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
    ['a node apiUrl over plain http to a remote host (SPEC 28)', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","apiUrl":"http://10.0.0.2:8006"}]' }, /proxmox\.nodes: entry 0 \(a\): apiUrl plain http:\/\/ is only allowed for loopback/],
    ['a node apiUrl with a user and password (SPEC 28)', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","apiUrl":"https://root:pw@pve2:8006"}]' }, /proxmox\.nodes: entry 0 \(a\): apiUrl carries credentials; allowed: .*proxmox\.tokenFile/],
    ['a node apiUrl that is not a URL (SPEC 28)', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","apiUrl":"pve2:8006"}]' }, /proxmox\.nodes: entry 0 \(a\): apiUrl has scheme pve2:|apiUrl is not a URL/],
    ['an unknown node key', { PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","vlan":5}]' }, /unknown key "vlan"/],
    ['a template that is neither a VMID nor {vmid, node}', { PROXMOX_NODES: '[{"name":"a","template":"9001","isoStorage":"s1"}]' }, /entry 0 \(a\): template must be a VMID .* or \{"vmid": N, "node": "NODE"\}/],
    ['a template on another node without its node', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":9001},"isoStorage":"s1"}]' }, /entry 0 \(a\): template\.node must be a Proxmox node name/],
    ['a template on another node with a bad VMID', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":5,"node":"b"},"isoStorage":"s1"}]' }, /entry 0 \(a\): template\.vmid must be a VMID/],
    ['a template with an unknown key', { PROXMOX_NODES: '[{"name":"a","template":{"vmid":9001,"node":"b","pool":"x"},"isoStorage":"s1"}]' }, /entry 0 \(a\): template has unknown key "pool"/],
    ['an image list that is not a list', { PROXMOX_IMAGES: '"debian"' }, /proxmox\.images: must be a JSON list of \{name, description\?, templates\}/],
    ['an image without templates', { PROXMOX_IMAGES: '[{"name":"debian"}]' }, /proxmox\.images: entry 0 \(debian\): templates must be a non-empty object/],
    ['an image with an empty templates object', { PROXMOX_IMAGES: '[{"name":"debian","templates":{}}]' }, /proxmox\.images: entry 0 \(debian\): templates must be a non-empty object/],
    ['an image with a bad VMID', { PROXMOX_IMAGES: '[{"name":"debian","templates":{"pve1":5}}]' }, /proxmox\.images: entry 0 \(debian\) templates\.pve1: template must be a VMID/],
    ['an image with a bad name', { PROXMOX_IMAGES: '[{"name":"Debian 12","templates":{"pve1":9001}}]' }, /proxmox\.images: entry 0: name must be 1 to 63 of a-z/],
    ['an image with an unknown key', { PROXMOX_IMAGES: '[{"name":"debian","template":9001}]' }, /proxmox\.images: entry 0 has unknown key "template"/],
    ['an image named twice', { PROXMOX_IMAGES: '[{"name":"debian","templates":{"pve1":9001}},{"name":"debian","templates":{"pve2":9002}}]' }, /proxmox\.images: names image "debian" twice/],
    ['an image naming an unconfigured node', { PROXMOX_IMAGES: '[{"name":"debian","templates":{"pve1":9001,"pve9":9009}}]' }, /proxmox\.images\[0\] \(debian\) names node "pve9", which is not in proxmox\.nodes \(pve1, pve2\)/],
    ['an unknown default image', { PROXMOX_IMAGES: '[{"name":"debian","templates":{"pve1":9001}}]', PROXMOX_DEFAULT_IMAGE: 'ubuntu' }, /proxmox\.defaultImage "ubuntu" is not an image \(images: debian\)/],
    ['a default image other than "default" without images', { PROXMOX_DEFAULT_IMAGE: 'debian' }, /proxmox\.defaultImage "debian" is not an image \(images: default\)/],
    ['a node without a template when there are no images', { PROXMOX_NODES: '[{"name":"a","isoStorage":"s1"}]' }, /proxmox\.nodes\[0\] \(a\) has no template, and proxmox\.images is empty/],
    ['a port out of range', { HTTP_PORT: '99999' }, /http\.port: ports must be within range 0 - 65535/],
    ['a tag Proxmox would refuse or fold', { PROXMOX_TAG: 'Bad Tag' }, /proxmox\.tag: must be a Proxmox tag: lowercase letters/],
    ['a word for a number', { JOBS_ATTEMPTS: 'many' }, /jobs\.attempts: must be a whole number of at least 1/],
    ['pvedaemon slots\' worst cases scaled to nothing (SPEC 28)', { PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: '0' }, /proxmox\.daemonSlotWorstCaseScale: must be a number above 0 and at most 1/],
    ['pvedaemon slots\' worst cases scaled above a real host\'s (SPEC 28)', { PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: '2' }, /proxmox\.daemonSlotWorstCaseScale: must be a number above 0 and at most 1/],
    ['a seed listing every 0 sweeps (SPEC 5, 26)', { RECONCILER_SEED_LISTING_EVERY: '0' }, /reconciler\.seedListingEvery: must be a whole number of at least 1/],
    ['a redis URL of another scheme', { REDIS_URL: 'http://127.0.0.1:6379' }, /redis\.url: has scheme http:; allowed: redis:\/\//],
    ['a prefix with a colon', { REDIS_PREFIX: 'a:b' }, /redis\.prefix: must be 1 to 64 of letters/],
    ['a relative public URL', { HTTP_PUBLIC_URL: '/v1' }, /http\.publicUrl: is not a URL; allowed: empty .*absolute https:\/\//],
    ['a public URL of another scheme', { HTTP_PUBLIC_URL: 'ftp://provisioner.example.com' }, /http\.publicUrl: has scheme ftp:; allowed/],
    ['a public URL with a query', { HTTP_PUBLIC_URL: 'https://provisioner.example.com/?a=1' }, /http\.publicUrl: has a query or fragment; allowed/],
    ['a public URL with credentials', { HTTP_PUBLIC_URL: 'https://u:p@provisioner.example.com' }, /http\.publicUrl: carries credentials; allowed/],
    ['a negative budgets.firstAddressSeconds (issue 27)', { BUDGETS_FIRST_ADDRESS_SECONDS: '-1' }, /budgets\.firstAddressSeconds: must be a number of at least 0/],
    ['a word for budgets.firstAddressSeconds (issue 27)', { BUDGETS_FIRST_ADDRESS_SECONDS: 'soon' }, /budgets\.firstAddressSeconds: must be a number of at least 0/],
    ['a default above its limit', { PROXMOX_DEFAULTS_CORES: '64', PROXMOX_LIMITS_MAX_CORES: '8' }, /proxmox\.defaults\.cores \(64\) is above proxmox\.limits\.maxCores \(8\)/],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming the key and the allowed form`, () => {
      expect(loadError(env)).to.match(/^invalid configuration: /).and.match(message);
    });
  }

  it('never echoes the user or password of a refused URL (SPEC 22, 28)', () => {
    const refusals = [
      loadError({ PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","apiUrl":"https://root:n0t-this-0ne@pve2:8006"}]' }),
      loadError({ PROXMOX_NODES: '[{"name":"a","template":9001,"isoStorage":"s1","apiUrl":"http://root:n0t-this-0ne@10.0.0.2:8006"}]' }),
      loadError({ REDIS_URL: 'ftp://:n0t-this-0ne@127.0.0.1:6379' }),
      loadError({ PROXMOX_URL: 'http://root:n0t-this-0ne@10.0.0.2:8006' }),
    ];
    for (const message of refusals) {
      expect(message).not.to.contain('n0t-this-0ne');
      expect(message).to.contain('://***@');
    }
  });

  it('without proxmox.images, one image "default" made of nodes[].template, the default (SPEC 27)', () => {
    const config = loadConfig({ env: {} });
    expect(config.proxmox.images).to.deep.equal([]);
    expect(imagesOf(config.proxmox)).to.deep.equal([
      {
        name: 'default',
        description: 'the template of each node (proxmox.nodes[].template)',
        isDefault: true,
        templates: [
          { node: 'pve1', template: 9001, key: 'proxmox.nodes[0].template' },
          { node: 'pve2', template: 9002, key: 'proxmox.nodes[1].template' },
        ],
        readiness: 'agent',
        readinessPort: 22,
      },
    ]);
  });

  it('takes images from PROXMOX_IMAGES, nodes without a template, and PROXMOX_DEFAULT_IMAGE (SPEC 27)', () => {
    const env = {
      PROXMOX_NODES: '[{"name":"pve1","isoStorage":"proxy-seeds"},{"name":"pve2","isoStorage":"proxy-seeds"}]',
      PROXMOX_IMAGES: '[{"name":"debian","templates":{"pve1":9001,"pve2":9002}},{"name":"shared","description":"on vm-shared","templates":{"pve2":{"vmid":9200,"node":"pve1"}}}]',
      PROXMOX_DEFAULT_IMAGE: 'shared',
    };
    const images = imagesOf(loadConfig({ env }).proxmox);
    expect(images.map((i) => [i.name, i.isDefault, i.templates.map((t) => t.node)])).to.deep.equal([
      ['debian', false, ['pve1', 'pve2']],
      ['shared', true, ['pve2']],
    ]);
    expect(images[1]?.templates[0]).to.deep.equal({ node: 'pve2', template: { vmid: 9200, node: 'pve1' }, key: 'proxmox.images[1].templates.pve2' });
    const { PROXMOX_DEFAULT_IMAGE: _unset, ...noDefault } = env;
    expect(imagesOf(loadConfig({ env: noDefault }).proxmox).find((i) => i.isDefault)?.name, 'no defaultImage: the first').to.equal('debian');
  });

  it('takes budgets.firstAddressSeconds in seconds, fractions and 0 allowed (issue 27, SPEC 26)', () => {
    expect(loadConfig({ env: {} }).budgets.firstAddressSeconds).to.equal(30);
    expect(loadConfig({ env: { BUDGETS_FIRST_ADDRESS_SECONDS: '0.3' } }).budgets.firstAddressSeconds).to.equal(0.3);
    expect(loadConfig({ env: { BUDGETS_FIRST_ADDRESS_SECONDS: '0' } }).budgets.firstAddressSeconds).to.equal(0);
    // A config with a short address budget is not refused on upgrade: the wait takes at most half of it (test/provider/waits.test.ts).
    expect(loadConfig({ env: { BUDGETS_ADDRESS_SECONDS: '30' } }).budgets.firstAddressSeconds).to.equal(30);
  });

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
