// SPEC 29 (issue 31): the simulator's guest boots from the seed it was
// given: the agent reports the network-config's static address, the
// guest phones home sim.agentSeconds after its start when the
// cloud-config asks, and listens on a loopback static address once booted.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { buildIsoImage, type IsoFile } from '../../src/iso9660/index.js';
import { seedFiles } from '../../src/nocloud/seed.js';
import type { UploadSource } from '../../src/proxmox/api.js';
import { GUEST_BANNER } from '../../src/sim/guest/listeners.js';
import { guestAddress } from '../../src/sim/index.js';
import { freePort } from '../support/free-port.js';
import { AUTH, startTestSim, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';
const ID = 4301;
const SEED = 'vm-a-seed.iso';
/** A 127.77.x.y address of this run, so two runs at once do not meet. */
const ADDRESS = `127.77.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;

interface GuestsView {
  guests: { vmid: number; booted: boolean; listening: string[]; listenFailures: string[]; seed: { staticAddress?: { address: string; prefixLength: number }; instanceId?: string; problems: string[] } }[];
  phoneHomes: { vmid: number; origin: string; at: string; attempt: number; status?: number; skipped?: string }[];
}

interface AgentInterface {
  name: string;
  'hardware-address': string;
  'ip-addresses': { 'ip-address': string; 'ip-address-type': string; prefix: number }[];
}

async function bytesOf(source: UploadSource): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source.open()) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

function networkConfig(mac: string, address = ADDRESS): string {
  return `version: 2\nethernets:\n  net0:\n    match:\n      macaddress: "${mac}"\n    addresses: ["${address}/24"]\n`;
}

function phoneHomeVendorData(url: string, tries = 10): string {
  return `#cloud-config\nphone_home:\n  url: "${url}"\n  post: [instance_id]\n  tries: ${tries}\n`;
}

/** A seed as src/nocloud/seed.ts lays it out, with the vendor-data given by hand. */
async function seed(options: { networkConfig?: string; vendorData?: string; userData?: string }): Promise<Buffer> {
  const files: IsoFile[] = seedFiles({ name: 'vm-a', installGuestAgent: false, joliet: false, networkConfig: options.networkConfig, userData: options.userData });
  if (options.vendorData !== undefined) files.push({ name: 'vendor-data', data: Buffer.from(options.vendorData) });
  return bytesOf(buildIsoImage(files, { volumeId: 'cidata', joliet: false }));
}

/** A local server that answers each POST with the next status of `statuses` (204 after them). */
function readyServer(statuses: number[] = []): Promise<{ server: Server; url: string; posts: { type: string; body: string }[]; next: () => Promise<void> }> {
  const posts: { type: string; body: string }[] = [];
  let waiting: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      posts.push({ type: req.headers['content-type'] ?? '', body });
      res.writeHead(statuses.shift() ?? 204).end();
      waiting?.();
    });
  });
  const next = (): Promise<void> => new Promise((resolve) => (waiting = resolve));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/ready/tok-123`, posts, next })));
}

/** The banner the address and port answer with, or the connection's error code. */
function banner(address: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host: address, port });
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

describe('simulator: the guest boots from its seed (SPEC 29)', function () {
  let sim: TestSim;
  let port: number;
  const servers: Server[] = [];

  beforeEach(async function () {
    port = await freePort();
    sim = await startTestSim({ guestPorts: [port] });
  });
  afterEach(async function () {
    await sim.close();
    for (const server of servers.splice(0)) server.close();
  });

  const guests = async (): Promise<GuestsView> => (await sim.control('GET', 'guests')) as GuestsView;
  const guest = async (): Promise<GuestsView['guests'][number] | undefined> => (await guests()).guests.find((g) => g.vmid === ID);
  const agent = (): Promise<{ result: AgentInterface[] }> => sim.data('GET', `${Q}/${ID}/agent/network-get-interfaces`);

  /** Clones template 9001 to ID; answers net0's MAC as the guest sees it. */
  async function cloneVm(): Promise<string> {
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'vm-a', full: 1 });
    sim.clock.advance(2);
    const config = await sim.data<Record<string, string>>('GET', `${Q}/${ID}/config`);
    return (/([0-9A-F]{2}(?::[0-9A-F]{2}){5})/i.exec(config.net0 ?? '')?.[1] ?? '').toLowerCase();
  }

  async function attach(image: Buffer): Promise<void> {
    const form = new FormData();
    form.append('content', 'iso');
    form.append('filename', new Blob([image]), SEED);
    const answer = await fetch(`${sim.url}/api2/json/nodes/pv1-1/storage/proxy-seeds/upload`, { method: 'POST', body: form, headers: AUTH });
    expect(answer.status).to.equal(200);
    sim.clock.advance(1);
    await sim.data('PUT', `${Q}/${ID}/config`, { ide2: `proxy-seeds:iso/${SEED},media=cdrom` });
  }

  async function start(): Promise<void> {
    await sim.data('POST', `${Q}/${ID}/status/start`);
    sim.clock.advance(1);
  }

  async function stop(): Promise<void> {
    await sim.data('POST', `${Q}/${ID}/status/stop`);
    sim.clock.advance(1);
  }

  it("reports through the agent the static address the network-config sets on net0's MAC, once the agent is up", async function () {
    const mac = await cloneVm();
    await attach(await seed({ networkConfig: networkConfig(mac) }));
    await start();
    expect((await sim.api('GET', `${Q}/${ID}/agent/network-get-interfaces`)).reason).to.equal('QEMU guest agent is not running');
    sim.clock.advance(47);
    const nic = (await agent()).result.find((i) => i.name === 'ens18');
    expect(nic?.['hardware-address']).to.equal(mac);
    expect(nic?.['ip-addresses'].filter((a) => a['ip-address-type'] === 'ipv4')).to.deep.equal([{ 'ip-address': ADDRESS, 'ip-address-type': 'ipv4', prefix: 24 }]);
  });

  it('takes a version 1 network-config too (address and netmask)', async function () {
    const mac = await cloneVm();
    const v1 = `version: 1\nconfig:\n  - type: physical\n    name: eth0\n    mac_address: "${mac}"\n    subnets:\n      - type: static\n        address: ${ADDRESS}\n        netmask: 255.255.0.0\n`;
    await attach(await seed({ networkConfig: v1 }));
    await start();
    sim.clock.advance(47);
    const ipv4 = (await agent()).result.find((i) => i.name === 'ens18')?.['ip-addresses'][0];
    expect(ipv4).to.include({ 'ip-address': ADDRESS, prefix: 16 });
  });

  it('gives a DHCP address when the network-config is for another MAC, or is not YAML (as cloud-init falls back)', async function () {
    await cloneVm();
    await attach(await seed({ networkConfig: networkConfig('bc:24:11:ff:ff:ff') }));
    await start();
    sim.clock.advance(47);
    const dhcp = { 'ip-address': guestAddress(ID), 'ip-address-type': 'ipv4', prefix: 24 };
    expect((await agent()).result.find((i) => i.name === 'ens18')?.['ip-addresses'][0]).to.deep.equal(dhcp);

    await stop();
    await attach(await seed({ networkConfig: 'version: 2\nethernets: [unclosed\n' }));
    await start();
    sim.clock.advance(47);
    expect((await agent()).result.find((i) => i.name === 'ens18')?.['ip-addresses'][0]).to.deep.equal(dhcp);
    expect((await guest())?.seed.problems.join(' ')).to.match(/network-config: not YAML .*falls back to DHCP/);
  });

  it('phones home sim.agentSeconds after the start, posting instance_id form-encoded, and not before', async function () {
    const ready = await readyServer();
    servers.push(ready.server);
    const mac = await cloneVm();
    await attach(await seed({ networkConfig: networkConfig(mac), vendorData: phoneHomeVendorData(ready.url) }));
    await start();
    sim.clock.advance(46);
    expect((await guest())?.booted).to.equal(false);
    expect(ready.posts).to.deep.equal([]);
    const arrived = ready.next();
    sim.clock.advance(1);
    await guests();
    await arrived;
    expect(ready.posts).to.deep.equal([{ type: 'application/x-www-form-urlencoded', body: 'instance_id=vm-a' }]);
    const calls = (await guests()).phoneHomes;
    expect(calls).to.deep.equal([{ vmid: ID, origin: new URL(ready.url).origin, at: calls[0]?.at, attempt: 1, status: 204 }]);
    // The answer names the origin only: the path carries the token.
    expect(JSON.stringify(await guests())).not.to.include('tok-123');
  });

  it('does not phone home when stopped before it booted', async function () {
    const ready = await readyServer();
    servers.push(ready.server);
    await cloneVm();
    await attach(await seed({ vendorData: phoneHomeVendorData(ready.url) }));
    await start();
    await stop();
    sim.clock.advance(60);
    const view = await guests();
    expect(view.guests.find((g) => g.vmid === ID)?.booted).to.equal(false);
    expect(view.phoneHomes).to.deep.equal([]);
  });

  it('skips a phone-home URL off this machine, never connecting, and says so', async function () {
    await cloneVm();
    await attach(await seed({ vendorData: phoneHomeVendorData('http://192.0.2.10:8080/v1/ready/x') }));
    await start();
    sim.clock.advance(47);
    const calls = (await guests()).phoneHomes;
    expect(calls).to.have.length(1);
    expect(calls[0]).to.include({ origin: 'http://192.0.2.10:8080', attempt: 0 });
    expect(calls[0]?.skipped).to.match(/not a loopback address/);
  });

  it("takes the user-data's phone_home over the vendor-data's", async function () {
    const ready = await readyServer();
    servers.push(ready.server);
    await cloneVm();
    const vendorData = phoneHomeVendorData('http://192.0.2.10/never');
    const userData = `#cloud-config\nphone_home:\n  url: "${ready.url}"\n  post: [instance_id, hostname]\n`;
    await attach(await seed({ vendorData, userData }));
    await start();
    const arrived = ready.next();
    sim.clock.advance(47);
    await guests();
    await arrived;
    expect(ready.posts.map((p) => p.body)).to.deep.equal(['instance_id=vm-a&hostname=vm-a']);
  });

  it('listens on a loopback static address once booted, not before, with an SSH-like banner; a stop closes it', async function () {
    const mac = await cloneVm();
    await attach(await seed({ networkConfig: networkConfig(mac) }));
    await start();
    await guests();
    expect(await banner(ADDRESS, port)).to.equal('ECONNREFUSED');
    sim.clock.advance(47);
    expect((await guest())?.listening).to.deep.equal([`${ADDRESS}:${port}`]);
    expect(await banner(ADDRESS, port)).to.equal(GUEST_BANNER);
    await stop();
    expect((await guest())?.listening).to.deep.equal([]);
    expect(await banner(ADDRESS, port)).to.equal('ECONNREFUSED');
  });

  it('closes the listener when the simulator closes', async function () {
    const mac = await cloneVm();
    await attach(await seed({ networkConfig: networkConfig(mac) }));
    await start();
    sim.clock.advance(47);
    expect((await guest())?.listening).to.have.length(1);
    await sim.close();
    expect(await banner(ADDRESS, port)).to.equal('ECONNREFUSED');
    sim = await startTestSim();
  });

  it('boots without a seed whose bytes it did not keep (over 1 MiB), and with none once the volume is deleted', async function () {
    const mac = await cloneVm();
    await attach(await seed({ networkConfig: networkConfig(mac), userData: `#cloud-config\n# ${'x'.repeat(1024 * 1024)}\n` }));
    await start();
    sim.clock.advance(47);
    expect((await agent()).result.find((i) => i.name === 'ens18')?.['ip-addresses'][0]?.['ip-address']).to.equal(guestAddress(ID));
    expect((await guest())?.seed.problems.join(' ')).to.match(/not kept/);

    await stop();
    await sim.data('DELETE', `/nodes/pv1-1/storage/proxy-seeds/content/${encodeURIComponent(`proxy-seeds:iso/${SEED}`)}`);
    sim.clock.advance(1);
    await start();
    expect((await guest())?.seed.problems).to.deep.equal([`proxy-seeds:iso/${SEED}: no such volume`]);
  });
});

describe('simulator: a guest phones home on its own clock, with no request to the simulator (SPEC 29)', function () {
  let sim: TestSim;
  const servers: Server[] = [];
  beforeEach(async function () {
    sim = await startTestSim({ timeScale: 0.01, now: Date.now, guestPorts: [] });
  });
  afterEach(async function () {
    await sim.close();
    for (const server of servers.splice(0)) server.close();
  });

  /** Clones, uploads the seed, attaches it and starts the VM, waiting for tasks as the provider does; nothing asked after. */
  async function startWithSeed(vendorData: string): Promise<void> {
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'vm-a', full: 1 });
    const form = new FormData();
    form.append('content', 'iso');
    form.append('filename', new Blob([await seed({ vendorData })]), SEED);
    await fetch(`${sim.url}/api2/json/nodes/pv1-1/storage/proxy-seeds/upload`, { method: 'POST', body: form, headers: AUTH });
    await waitForTasks(sim);
    await sim.data('PUT', `${Q}/${ID}/config`, { ide2: `proxy-seeds:iso/${SEED},media=cdrom` });
    await sim.data('POST', `${Q}/${ID}/status/start`);
  }

  it('posts to the URL sim.agentSeconds (scaled) after the start while nobody asks the simulator anything', async function () {
    const ready = await readyServer();
    servers.push(ready.server);
    const arrived = ready.next();
    await startWithSeed(phoneHomeVendorData(ready.url));
    await arrived;
    expect(ready.posts.map((p) => p.body)).to.deep.equal(['instance_id=vm-a']);
  });

  it('tries again after an error answer, as cloud-init does, up to tries', async function () {
    const ready = await readyServer([500, 503]);
    servers.push(ready.server);
    await startWithSeed(phoneHomeVendorData(ready.url, 3));
    while (ready.posts.length < 3) await ready.next();
    const calls = ((await sim.control('GET', 'guests')) as GuestsView).phoneHomes;
    expect(calls.map((c) => [c.attempt, c.status])).to.deep.equal([[1, 500], [2, 503], [3, 204]]);
  });
});

/** Polls, as the provider does, until no task of the node is running (the clone and the upload). */
async function waitForTasks(sim: TestSim): Promise<void> {
  for (;;) {
    const running = await sim.data<unknown[]>('GET', '/nodes/pv1-1/tasks', { source: 'active' });
    if (running.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
