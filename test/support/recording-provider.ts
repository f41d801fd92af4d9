// A provider double for the queue layer's tests: the queue is under test,
// not Proxmox. Its VMs live in Redis (so a worker process killed mid-create
// and its successor see the same VMs) and it records when each call ran,
// so tests can prove that no two jobs of one name overlapped (SPEC 3).
import type { Redis } from 'ioredis';
import { NotFoundError, PermanentError } from '../../src/errors.js';
import { ClaimLostError } from '../../src/provider/claim-lost.js';
import type {
  ClaimRequest,
  CreateResult,
  CreateSpec,
  CreateStep,
  DeleteRequest,
  DeleteResult,
  ListedVm,
  NodeHealth,
  OperationContext,
  Provider,
  SeedIso,
  StopRequest,
  StopResult,
  VmObservation,
  VmRef,
} from '../../src/provider/types.js';

export const CREATE_STEPS: CreateStep[] = ['cloned', 'seeded', 'configured', 'started', 'running'];

export interface RecordedCall {
  op: 'create' | 'claim' | 'delete' | 'get' | 'stop';
  name: string;
  uid?: string;
  start: number;
  end: number;
  pid: number;
  outcome: 'ok' | 'error';
}

export interface DoubleVm {
  name: string;
  uid: string;
  vmid: number;
  steps: CreateStep[];
}

export interface RecordingProviderOptions {
  /** Time each create step takes (ms). */
  stepMs?: number;
  /** Time a delete takes (ms). */
  deleteMs?: number;
  /** Errors thrown by the next create calls, one per call, before any step. */
  createFailures?: Error[];
  /** Lines written to the job log by each create (secret test). */
  logLines?: string[];
  /** The address creates report (192.0.2.10 by default; the secret test echoes a token there). */
  address?: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export class RecordingProvider implements Provider {
  readonly createFailures: Error[];

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: RecordingProviderOptions = {},
  ) {
    this.createFailures = [...(options.createFailures ?? [])];
  }

  private vmKey(name: string): string {
    return `${this.prefix}:double:vm:${name}`;
  }

  private async record(call: Omit<RecordedCall, 'end' | 'pid' | 'outcome'>, outcome: RecordedCall['outcome']): Promise<void> {
    const full: RecordedCall = { ...call, end: Date.now(), pid: process.pid, outcome };
    await this.redis.rpush(`${this.prefix}:double:calls`, JSON.stringify(full));
  }

  async calls(): Promise<RecordedCall[]> {
    return (await this.redis.lrange(`${this.prefix}:double:calls`, 0, -1)).map((line) => JSON.parse(line) as RecordedCall);
  }

  async vm(name: string): Promise<DoubleVm | undefined> {
    const fields = await this.redis.hgetall(this.vmKey(name));
    if (fields.uid === undefined) return undefined;
    return { name, uid: fields.uid, vmid: Number(fields.vmid), steps: (fields.steps ?? '').split(',').filter(Boolean) as CreateStep[] };
  }

  /** Every VM ever numbered (vmids are never reused), to count VMs made. */
  async vmidsIssued(): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}:double:vmids`)) ?? 0);
  }

  private async timed<T>(op: RecordedCall['op'], name: string, uid: string | undefined, work: () => Promise<T>): Promise<T> {
    const start = Date.now();
    const base = uid === undefined ? { op, name, start } : { op, name, uid, start };
    try {
      const result = await work();
      await this.record(base, 'ok');
      return result;
    } catch (err) {
      await this.record(base, 'error');
      throw err;
    }
  }

  create(spec: CreateSpec, ctx: OperationContext): Promise<CreateResult> {
    return this.timed('create', spec.name, spec.uid, async () => {
      const failure = this.createFailures.shift();
      if (failure) throw failure;
      for (const line of this.options.logLines ?? []) await ctx.log?.(line);
      let vm = await this.vm(spec.name);
      if (vm && vm.uid !== spec.uid) throw new PermanentError(`VM ${spec.name} belongs to another uid`);
      for (const step of CREATE_STEPS) {
        if (vm?.steps.includes(step)) continue;
        ctx.beforeWrite?.();
        await sleep(this.options.stepMs ?? 0, ctx.signal);
        if (vm === undefined) {
          const vmid = await this.redis.incr(`${this.prefix}:double:vmids`);
          vm = { name: spec.name, uid: spec.uid, vmid, steps: [] };
          await this.redis.hset(this.vmKey(spec.name), { uid: spec.uid, vmid });
        }
        vm.steps.push(step);
        await this.redis.hset(this.vmKey(spec.name), 'steps', vm.steps.join(','));
        await ctx.progress?.(step);
      }
      const result: CreateResult = {
        providerId: `vms/${vm?.vmid}/${spec.name}`,
        vmid: vm?.vmid ?? 0,
        node: 'pve1',
        uid: spec.uid,
        state: 'Running',
        address: this.options.address ?? '192.0.2.10',
        createdAt: new Date().toISOString(),
        image: spec.image ?? 'default',
      };
      return result;
    });
  }

  /** SPEC 30: the member's double becomes the claimer's (a rerun finds it so); a member not there is a lost claim. */
  claim(request: ClaimRequest, ctx: OperationContext): Promise<CreateResult> {
    const { spec, claim } = request;
    return this.timed('claim', spec.name, spec.uid, async () => {
      const mine = await this.vm(spec.name);
      if (mine?.uid !== spec.uid) {
        const member = await this.vm(claim.member);
        if (member?.uid !== claim.memberUid) throw new ClaimLostError(`claim of ${claim.member} for ${spec.name}: the member is gone`, 'gone');
        ctx.beforeWrite?.();
        await this.redis.hset(this.vmKey(spec.name), { uid: spec.uid, vmid: member.vmid, steps: CREATE_STEPS.join(',') });
        await this.redis.del(this.vmKey(claim.member));
      }
      return {
        providerId: `vms/${claim.vmid}/${spec.name}`,
        vmid: claim.vmid,
        node: claim.node,
        uid: spec.uid,
        state: 'Running',
        address: spec.address?.address ?? claim.address ?? this.options.address ?? '192.0.2.10',
        createdAt: new Date().toISOString(),
        image: spec.image ?? 'default',
        origin: 'pool',
      };
    });
  }

  delete(request: DeleteRequest, ctx: OperationContext): Promise<DeleteResult> {
    return this.timed('delete', request.name, request.uid, async () => {
      const vm = await this.vm(request.name);
      if (vm === undefined || (request.uid !== undefined && vm.uid !== request.uid)) {
        throw new NotFoundError(`Configuration file 'nodes/pve1/qemu-server/0.conf' does not exist`, { reason: `no VM named ${request.name}` });
      }
      ctx.beforeWrite?.();
      await sleep(this.options.deleteMs ?? 0, ctx.signal);
      await this.redis.del(this.vmKey(request.name));
      return { deleted: true, vmid: vm.vmid, seedsDeleted: 1 };
    });
  }

  /** SPEC 31: the VM stays, marked stopped; a create of it again clears the mark. */
  stop(request: StopRequest, ctx: OperationContext): Promise<StopResult> {
    return this.timed('stop', request.name, request.uid, async () => {
      const vm = await this.vm(request.name);
      if (vm === undefined || vm.uid !== request.uid) return { stopped: false };
      ctx.beforeWrite?.();
      await this.redis.hset(this.vmKey(request.name), 'stopped', '1');
      return { stopped: true, vmid: vm.vmid, node: 'pve1' };
    });
  }

  get(ref: VmRef, _ctx: OperationContext): Promise<VmObservation> {
    return this.timed('get', ref.name, ref.uid, async () => {
      const vm = await this.vm(ref.name);
      if (vm === undefined || vm.uid !== ref.uid) return { state: 'NotFound' as const };
      return { state: 'Running' as const, vmid: vm.vmid, node: 'pve1', uid: vm.uid, address: '192.0.2.10' };
    });
  }

  async findByName(name: string, _ctx: OperationContext): Promise<ListedVm[]> {
    const vm = await this.vm(name);
    return vm ? [{ vmid: vm.vmid, node: 'pve1', name, uid: vm.uid, ours: true, tagged: true }] : [];
  }

  async findByNames(names: string[], ctx: OperationContext): Promise<ListedVm[]> {
    return (await Promise.all(names.map((name) => this.findByName(name, ctx)))).flat();
  }

  listByTag(_ctx: OperationContext): Promise<ListedVm[]> {
    return Promise.resolve([]);
  }

  listTaggedOrNamed(names: string[], ctx: OperationContext): Promise<ListedVm[]> {
    return this.findByNames(names, ctx);
  }

  listSeeds(_ctx: OperationContext): Promise<SeedIso[]> {
    return Promise.resolve([]);
  }

  listRecordedSeeds(_ctx: OperationContext): Promise<SeedIso[]> {
    return Promise.resolve([]);
  }

  deleteSeed(_seed: SeedIso, _ctx: OperationContext): Promise<void> {
    return Promise.resolve();
  }

  health(_ctx: OperationContext): Promise<NodeHealth[]> {
    return Promise.resolve([{ node: 'pve1', ok: true, reasons: [] }]);
  }
}
