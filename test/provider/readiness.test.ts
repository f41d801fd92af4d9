// SPEC 29 (issue 31): a create's readiness per image, on the fake Proxmox
// with the fake clock, and for phone-home the real Redis and the real API
// server's /v1/ready route. `none` completes once the VM runs, `tcp` once
// the leased address accepts a connect, `phone-home` once the guest's
// call arrives, none of them with an agent call; a signal that does not
// come within budgets.addressSeconds gets one agent read, and the failure
// names the signal. Every address here is in 127.0.0.0/8.
import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import type { AddressLease } from '../../src/addresses/types.js';
import type { ImageConfig } from '../../src/config/types.js';
import { PermanentError, TransientError } from '../../src/errors.js';
import type { ProviderConfig } from '../../src/provider/deps.js';
import { readyTokenSeconds } from '../../src/provider/phone-home.js';
import type { ReadySignals } from '../../src/provider/ready-signals.js';
import { refuseUnready } from '../../src/provider/ready-refusal.js';
import type { CreateSpec, CreateStep, OperationContext } from '../../src/provider/types.js';
import { parseNet0 } from '../../src/provider/vm-config.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { redisReadySignals } from '../../src/queue/ready-signals.js';
import { keys } from '../../src/redis-keys.js';
import { rejection } from '../support/rejection.js';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';
import { harness, RANGE, testConfig, type Harness, type HarnessOptions } from './harness.js';

const NAME = 'ready-a';
const UID = 'b7e1c0de-0000-4000-8000-000000000029';
const VMID = vmidForUid(UID, RANGE);
const HOST = '127.77.0.5';
const LEASE: AddressLease = { pool: 'lo77', address: HOST, prefixLength: 24, gateway: '127.77.0.1', dns: ['127.77.0.53'], uid: UID, takenAt: '2026-11-30T10:00:00.000Z' };
const PUBLIC_URL = 'https://provisioner.example/base';

function spec(image: string, over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, image, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, address: LEASE, generation: 4, ...over };
}

function configWith(port: number, over: { url?: string; publicUrl?: string } = {}): ProviderConfig {
  const templates = { 'pv1-1': 9001 };
  const images: ImageConfig[] = [
    { name: 'ssh', templates, readiness: 'tcp', readinessPort: port },
    { name: 'quiet', templates, readiness: 'none' },
    { name: 'calls', templates, readiness: 'phone-home' },
    { name: 'agent', templates },
  ];
  const base = testConfig([{ name: 'pv1-1', isoStorage: 'proxy-seeds' }], images);
  return { ...base, proxmox: { ...base.proxmox, url: over.url ?? base.proxmox.url }, http: { publicUrl: over.publicUrl ?? PUBLIC_URL } };
}

/** A harness whose ctx records the steps; `waiting()` is true once the VM runs, so a beforeSleep acts during the readiness wait only. */
function readyHarness(config: ProviderConfig, options: HarnessOptions = {}): { h: Harness; ctx: OperationContext; steps: CreateStep[]; waiting: () => boolean } {
  const steps: CreateStep[] = [];
  const h = harness({ config, ...options });
  const ctx: OperationContext = { ...h.ctx, progress: (step) => void steps.push(step) };
  return { h, ctx, steps, waiting: () => steps.includes('running') };
}

/** The seed of `name` the fake holds, as text: its files are stored whole in the ISO. */
function seedText(h: Harness, name = NAME): string {
  const volume = h.pve.volumes('pv1-1', 'proxy-seeds').find((v) => v.volid === `proxy-seeds:iso/${name}-seed.iso`);
  return volume?.bytes.toString('latin1') ?? '';
}

/** A port nothing listens on at HOST right now. */
async function freePortOn(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** The leased address on net0's MAC, as an agent whose guest took the static network-config reports it. */
function agentReportsLease(h: Harness): void {
  h.pve.on('start', (args) => {
    const vm = h.pve.vm(args[1] as number);
    const mac = parseNet0(String(vm?.config.net0 ?? '')).mac?.toLowerCase() ?? '';
    if (vm) vm.agent.interfaces = [{ name: 'net0', 'hardware-address': mac, 'ip-addresses': [{ 'ip-address': HOST, 'ip-address-type': 'ipv4', prefix: 24 }] }];
  });
}

describe('readiness per image (SPEC 29, issue 31)', () => {
  let port = 0;
  before(async () => {
    port = await freePortOn(HOST);
  });

  describe('the seed of a create with an address lease', () => {
    it("carries the static network-config on net0's MAC, and the job's own networkConfig is refused before any call", async () => {
      const { h, ctx } = readyHarness(configWith(port));
      await h.provider.create(spec('quiet'), ctx);
      const mac = parseNet0(String(h.pve.vm(VMID)?.config.net0)).mac?.toLowerCase();
      expect(mac).to.match(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
      const text = seedText(h);
      expect(text).to.contain(`version: 2\nethernets:\n  net0:\n    match:\n      macaddress: "${mac ?? ''}"\n    addresses:\n      - "127.77.0.5/24"\n`);
      expect(text).to.contain('via: "127.77.0.1"');

      const other = readyHarness(configWith(port));
      const refused = await rejection(other.h.provider.create(spec('quiet', { networkConfig: 'version: 2\n' }), other.ctx));
      expect(refused).to.be.instanceOf(PermanentError);
      expect(refused.message).to.contain('networkConfig is given, but the VM\'s address 127.77.0.5 comes from pool lo77');
      expect(other.h.pve.calls).to.have.length(0);
    });

    it('a lease that is not an IPv4 address is refused before any call', async () => {
      const { h, ctx } = readyHarness(configWith(port));
      const refused = await rejection(h.provider.create(spec('quiet', { address: { ...LEASE, address: '127.77.0.500' } }), ctx));
      expect(refused).to.be.instanceOf(PermanentError);
      expect(refused.message).to.contain('is not an IPv4 address and a prefix length');
      expect(h.pve.calls).to.have.length(0);
    });
  });

  describe('none', () => {
    it('completes once the VM runs, with the lease\'s address and no agent call; the log says so', async () => {
      const { h, ctx, steps } = readyHarness(configWith(port));
      const result = await h.provider.create(spec('quiet'), ctx);
      expect(result).to.include({ state: 'Running', address: HOST, vmid: VMID });
      expect(h.pve.count('agentInterfaces')).to.equal(0);
      expect(steps.at(-1)).to.equal('address');
      expect(h.lines).to.include(`VM ${VMID}: readiness none: ready once it runs`);
    });
  });

  describe('tcp', () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    });

    it('waits until the leased address accepts a connect on readinessPort, with no Proxmox call meanwhile', async () => {
      let accepted = 0;
      let callsAtOpen = -1;
      const open = async (): Promise<void> => {
        server = createServer((socket) => {
          accepted += 1;
          socket.destroy();
        });
        await new Promise<void>((resolve) => server?.listen(port, HOST, resolve));
      };
      const ready = readyHarness(configWith(port), {
        // The listener opens while the create waits, after a connect was refused.
        beforeSleep: async () => {
          if (!ready.waiting() || server !== undefined) return;
          callsAtOpen = ready.h.pve.calls.length;
          await open();
        },
      });
      const result = await ready.h.provider.create(spec('ssh'), ready.ctx);
      expect(result).to.include({ state: 'Running', address: HOST });
      expect(accepted).to.equal(1);
      expect(callsAtOpen, 'the listener was opened during the wait').to.be.above(0);
      expect(ready.h.pve.calls.length, 'no Proxmox call while waiting').to.equal(callsAtOpen);
      expect(ready.h.pve.count('agentInterfaces')).to.equal(0);
      expect(ready.h.lines).to.include(`VM ${VMID}: readiness tcp: waiting up to 300 s for ${HOST}:${port} to accept a TCP connection`);
    });

    it('nothing accepting within budgets.addressSeconds: one agent read, then a failure naming the signal and what the agent said', async () => {
      const { h, ctx } = readyHarness(configWith(port));
      const failed = await rejection(h.provider.create(spec('ssh'), ctx));
      expect(failed).to.be.instanceOf(TransientError);
      expect(failed.message).to.match(new RegExp(`^create ${NAME}: nothing accepted TCP on 127\\.77\\.0\\.5:${port} within 300 s \\(the last attempt: ECONNREFUSED\\); one guest agent read then: the guest agent reports 192\\.168\\.`));
      expect(h.pve.count('agentInterfaces')).to.equal(1);
      expect(h.clock.now().getTime() - Date.parse('2026-11-30T10:00:00Z')).to.be.at.least(300_000);
    });

    it('nothing accepting, but the one agent read shows the leased address: the create completes', async () => {
      const { h, ctx } = readyHarness(configWith(port));
      agentReportsLease(h);
      const result = await h.provider.create(spec('ssh'), ctx);
      expect(result).to.include({ state: 'Running', address: HOST });
      expect(h.pve.count('agentInterfaces')).to.equal(1);
    });

    it('refuses, before any call, a non-loopback address while proxmox.url is the simulator, and a create with no lease', async () => {
      for (const url of ['sim', 'http://127.0.0.1:8006']) {
        const { h, ctx } = readyHarness(configWith(port, { url }));
        // Were the refusal gone, the create would stop at its first call, never reaching a connect off this machine.
        h.pve.on('clusterResources', () => {
          throw new Error('a Proxmox call before the refusal');
        });
        const refused = await rejection(h.provider.create(spec('ssh', { address: { ...LEASE, address: '10.20.0.5' } }), ctx));
        expect(refused).to.be.instanceOf(PermanentError);
        expect(refused.message).to.contain('proxmox.url is the simulator and 10.20.0.5 (pool lo77) is not in 127.0.0.0/8');
        expect(h.pve.calls).to.have.length(0);
      }
      const { h, ctx } = readyHarness(configWith(port));
      const { address: _none, ...unleased } = spec('ssh');
      const refused = await rejection(h.provider.create(unleased, ctx));
      expect(refused).to.be.instanceOf(PermanentError);
      expect(refused.message).to.contain('image ssh has readiness "tcp", which connects to the VM\'s address, but its network has no address pool');
      expect(h.pve.calls).to.have.length(0);
    });

    it('a real host\'s URL does not refuse a non-loopback lease; a create that does not wait is not refused without a lease', () => {
      const deps = { config: configWith(port) };
      expect(() => refuseUnready(deps, spec('ssh', { address: { ...LEASE, address: '10.20.0.5' } }), { name: 'ssh', readiness: 'tcp', readinessPort: port })).to.not.throw();
      const { address: _none, ...unleased } = spec('ssh', { waitForAddress: false });
      expect(() => refuseUnready(deps, unleased, { name: 'ssh', readiness: 'tcp', readinessPort: port })).to.not.throw();
    });
  });

  describe('phone-home, with the real API server', () => {
    let web: TestWeb;
    let signals: ReadySignals;
    before(async () => {
      web = await buildTestWeb();
      signals = redisReadySignals(web.redis, web.prefix);
    });
    after(() => web.close());

    const TOKEN_URL = new RegExp(`${PUBLIC_URL.replace(/[./]/g, '\\$&')}/v1/ready/([A-Za-z0-9_-]{43})"`);

    it("completes when the guest's call arrives at /v1/ready/<token>, with no agent call; the token is then good no more", async () => {
      const posted: number[] = [];
      let callsAtPost = -1;
      const ready = readyHarness(configWith(port), {
        readySignals: signals,
        beforeSleep: async () => {
          if (!ready.waiting() || posted.length > 0) return;
          const token = TOKEN_URL.exec(seedText(ready.h, `${NAME}-1`))?.[1] ?? 'none-in-the-seed';
          callsAtPost = ready.h.pve.calls.length;
          const res = await web.app.inject({ method: 'POST', url: `/v1/ready/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `instance_id=${NAME}` });
          posted.push(res.statusCode);
        },
      });
      const result = await ready.h.provider.create(spec('calls', { name: `${NAME}-1` }), ready.ctx);
      expect(posted).to.deep.equal([204]);
      expect(result).to.include({ state: 'Running', address: HOST });
      expect(ready.h.pve.count('agentInterfaces')).to.equal(0);
      expect(ready.h.pve.calls.length, 'no Proxmox call while waiting').to.equal(callsAtPost);
      expect(ready.h.lines).to.include(`VM ${VMID}: readiness phone-home: waiting up to 300 s for its guest's call to /v1/ready/<token>`);
      expect(ready.h.lines.join('\n')).to.not.match(/\/v1\/ready\/[A-Za-z0-9_-]{43}/);
      const token = TOKEN_URL.exec(seedText(ready.h, `${NAME}-1`))?.[1] ?? '';
      const again = await web.app.inject({ method: 'POST', url: `/v1/ready/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'instance_id=x' });
      expect(again.statusCode).to.equal(404);
    });

    it('stores the token bound to name, uid and generation, for the longest path from seed to the end of the wait', async () => {
      const name = `${NAME}-2`;
      const ready = readyHarness(configWith(port), { readySignals: signals });
      const stopAfterSeed: OperationContext = {
        ...ready.ctx,
        progress: (step) => {
          if (step === 'seeded') throw new Error('stop after the seed');
        },
      };
      await rejection(ready.h.provider.create(spec('calls', { name }), stopAfterSeed));
      const token = TOKEN_URL.exec(seedText(ready.h, name));
      const key = keys.readyToken(web.prefix, token?.[1] ?? '');
      expect(JSON.parse((await web.redis.get(key)) ?? 'null')).to.deep.equal({ name, uid: UID, generation: 4 });
      const ttl = await web.redis.ttl(key);
      expect(ttl).to.be.within(readyTokenSeconds(ready.h.config.budgets) - 5, readyTokenSeconds(ready.h.config.budgets));
      expect(readyTokenSeconds({ taskSeconds: 300, runningSeconds: 120, addressSeconds: 300 })).to.equal(1320);
    });

    it('no call within budgets.addressSeconds: one agent read, then a failure saying the guest never phoned home and what the agent said', async () => {
      const { h, ctx } = readyHarness(configWith(port), { readySignals: signals });
      const failed = await rejection(h.provider.create(spec('calls', { name: `${NAME}-3` }), ctx));
      expect(failed).to.be.instanceOf(TransientError);
      expect(failed.message).to.match(new RegExp(`^create ${NAME}-3: the guest never phoned home within 300 s; one guest agent read then: the guest agent reports 192\\.168\\.\\d+\\.\\d+, fe80::`));
      expect(h.pve.count('agentInterfaces')).to.equal(1);
    });

    it("a signal an earlier VM of the name and uid left does not end a new clone's wait: its guest must phone home itself", async () => {
      const name = `${NAME}-5`;
      await web.redis.set(keys.readySignal(web.prefix, name, UID), JSON.stringify({ name, uid: UID, generation: 1 }));
      const { h, ctx } = readyHarness(configWith(port), { readySignals: signals });
      const failed = await rejection(h.provider.create(spec('calls', { name }), ctx));
      expect(failed.message).to.contain('the guest never phoned home within 300 s');
      expect(await signals.arrived(name, UID)).to.equal(false);
    });

    it('on a network without a pool: completes on the call, and one agent read gives the address', async () => {
      const name = `${NAME}-4`;
      const ready = readyHarness(configWith(port), {
        readySignals: signals,
        beforeSleep: async () => {
          if (ready.waiting() && !(await signals.arrived(name, UID))) {
            const token = TOKEN_URL.exec(seedText(ready.h, name))?.[1] ?? '';
            await web.app.inject({ method: 'POST', url: `/v1/ready/${token}`, payload: '' });
          }
        },
      });
      const { address: _none, ...unleased } = spec('calls', { name });
      const result = await ready.h.provider.create(unleased, ready.ctx);
      expect(result.state).to.equal('Running');
      expect(result.address).to.match(/^192\.168\./);
      expect(ready.h.pve.count('agentInterfaces')).to.equal(1);
      expect(seedText(ready.h, name), 'no static network-config without a lease').to.not.contain('ethernets:');
    });

    it('is refused before any call without http.publicUrl, or without a token store', async () => {
      const noUrl = readyHarness(configWith(port, { publicUrl: '' }), { readySignals: signals });
      const refused = await rejection(noUrl.h.provider.create(spec('calls'), noUrl.ctx));
      expect(refused).to.be.instanceOf(PermanentError);
      expect(refused.message).to.contain('image calls has readiness "phone-home", but http.publicUrl is empty');
      expect(noUrl.h.pve.calls).to.have.length(0);
      const noStore = readyHarness(configWith(port));
      expect(await rejection(noStore.h.provider.create(spec('calls'), noStore.ctx))).to.be.instanceOf(PermanentError);
      expect(noStore.h.pve.calls).to.have.length(0);
    });
  });

  describe('agent, with a lease', () => {
    it('waits for the agent to report the leased address, a loopback one included, and answers it', async () => {
      const { h, ctx } = readyHarness(configWith(port));
      agentReportsLease(h);
      const result = await h.provider.create(spec('agent'), ctx);
      expect(result).to.include({ state: 'Running', address: HOST });
      expect(h.pve.count('agentInterfaces')).to.equal(1);
    });
  });
});
