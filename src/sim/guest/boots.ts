// The simulated guest's boot (SPEC 29): at each start it reads its seed
// (seed.ts); sim.agentSeconds (scaled) later, when the agent would answer,
// it listens on its loopback static address (listeners.ts) and runs the
// seed's phone_home (phone-home.ts). The boot step runs in the task book's
// order with the other tasks' effects, so a stop that ended first cancels
// it. Tasks take effect when someone looks (tasks.ts); a guest boots
// whether or not anyone looks, so each start sets a real timer that
// settles the book at its boot (wakeAt).
import { isLoopbackIpv4 } from '../../addresses/ipv4.js';
import type { SimState, SimVm } from '../state.js';
import type { TaskBook } from '../tasks.js';
import { openGuestListeners, type GuestListeners } from './listeners.js';
import { phoneHome, PHONE_HOME_PAUSE_SECONDS, type PhoneHomeCall } from './phone-home.js';
import { readGuestSeed } from './seed.js';
import type { GuestSeed } from './types.js';

/** What of the simulator a guest's boot uses. */
export interface GuestHost {
  readonly state: SimState;
  readonly tasks: TaskBook;
  now(): number;
  scaled(seconds: number): number;
  settle(): void;
  readonly options: { agentSeconds: number; guestPorts?: number[] };
}

/** sim.guestPorts when not given. */
export const DEFAULT_GUEST_PORTS = [22];
const KEPT_CALLS = 10_000;

interface Boot {
  vm: SimVm;
  startedAt: number;
  booted: boolean;
  abort: AbortController;
  listeners?: Promise<GuestListeners>;
  opened?: GuestListeners;
}

export class GuestBoots {
  /** Phone-home tries, oldest first (`GET /_sim/guests`). */
  readonly calls: PhoneHomeCall[] = [];
  private readonly boots = new Map<number, Boot>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly host: GuestHost) {}

  private get ports(): number[] {
    return this.host.options.guestPorts ?? DEFAULT_GUEST_PORTS;
  }

  /** A start that ends at `startedAt`: the book is settled at its boot, even if nobody asks the simulator anything by then. */
  wakeAtBoot(startedAt: number): void {
    this.wakeAt(startedAt + this.bootDelay);
  }

  /** A timer can fire a millisecond before Date.now() reaches its time: a settle then is too early, so it waits again. */
  private wakeAt(at: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.host.now() < at) this.wakeAt(at);
      else this.host.settle();
    }, Math.max(0, at - this.host.now()));
    timer.unref();
    this.timers.add(timer);
  }

  private get bootDelay(): number {
    return this.host.scaled(this.host.options.agentSeconds);
  }

  /** The start's effect at `startedAt`: the guest reads its seed and, when it has something to do at boot, is timed. */
  started(vm: SimVm, startedAt: number): void {
    this.shutdown(vm);
    vm.seed = this.seedAtBoot(vm);
    const { staticAddress, phoneHome: asked, instanceId } = vm.seed;
    const listens = staticAddress !== undefined && isLoopbackIpv4(staticAddress.address) && this.ports.length > 0;
    const phones = asked !== undefined && vm.phonedHomeFor !== (instanceId ?? '');
    if (!listens && !phones) return;
    const boot: Boot = { vm, startedAt, booted: false, abort: new AbortController() };
    this.boots.set(vm.vmid, boot);
    this.host.tasks.schedule(startedAt + this.bootDelay, () => this.boot(boot, listens, phones));
  }

  /** A stop or destroy: the guest's listeners close, a phone-home not yet made is not made. */
  shutdown(vm: SimVm): void {
    const boot = this.boots.get(vm.vmid);
    if (boot?.vm !== vm) return;
    this.boots.delete(vm.vmid);
    this.end(boot);
  }

  /** Every guest down (the simulator's close or reset). */
  async close(): Promise<void> {
    for (const boot of this.boots.values()) this.end(boot);
    this.boots.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.idle();
  }

  /** Resolves once every listener being opened or closed is done (a /_sim/ read sees them settled). */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  /** `GET /_sim/guests`: each VM that booted from a seed, the phone-home tries, and what agent/file-write wrote into each guest. */
  view(): Record<string, unknown> {
    const guests = [...this.host.state.allVms()].flatMap((vm) => {
      if (vm.seed === undefined) return [];
      const boot = this.boots.get(vm.vmid);
      const opened = boot?.vm === vm ? boot.opened : undefined;
      return [{ vmid: vm.vmid, node: vm.node, status: vm.status, booted: boot?.vm === vm && boot.booted, seed: seedView(vm.seed), listening: opened?.listening ?? [], listenFailures: opened?.failed ?? [] }];
    });
    const guestFiles = [...this.host.state.allVms()].flatMap((vm) => (vm.guestFiles === undefined ? [] : [{ vmid: vm.vmid, node: vm.node, files: vm.guestFiles }]));
    return { guests, phoneHomes: this.calls, guestFiles };
  }

  /** The seed as read now; without one, a guest that read one at an earlier boot keeps the network it set up then. */
  private seedAtBoot(vm: SimVm): GuestSeed {
    const read = readGuestSeed(this.host.state, vm);
    if (read.volid !== undefined || vm.seed?.volid === undefined) return read;
    return { ...vm.seed, phoneHome: undefined, problems: [...read.problems, 'the guest keeps the network it set up from its seed at an earlier boot'] };
  }

  private boot(boot: Boot, listens: boolean, phones: boolean): void {
    const { vm } = boot;
    if (this.boots.get(vm.vmid) !== boot || vm.status !== 'running' || vm.startedAt !== boot.startedAt || vm.seed === undefined) return;
    boot.booted = true;
    const seed = vm.seed;
    if (listens && seed.staticAddress !== undefined) {
      boot.listeners = this.track(
        openGuestListeners(seed.staticAddress.address, this.ports).then((opened) => {
          boot.opened = opened;
          return opened;
        }),
      );
    }
    if (phones) {
      // cloud-init runs phone_home once per instance: a later boot of the same instance does not.
      vm.phonedHomeFor = seed.instanceId ?? '';
      const run = phoneHome({ vmid: vm.vmid, seed, pauseMs: this.host.scaled(PHONE_HOME_PAUSE_SECONDS), signal: boot.abort.signal, record: (call) => this.record(call) });
      run.catch(() => undefined);
    }
  }

  private end(boot: Boot): void {
    boot.abort.abort();
    if (boot.listeners !== undefined) void this.track(boot.listeners.then((opened) => opened.close()));
  }

  private record(call: PhoneHomeCall): void {
    this.calls.push(call);
    if (this.calls.length > KEPT_CALLS * 1.1) this.calls.splice(0, this.calls.length - KEPT_CALLS);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    const done = (): void => void this.work.delete(promise);
    promise.then(done, done);
    return promise;
  }
}

/** The seed without its phone-home URL's path, which may carry a token. */
function seedView(seed: GuestSeed): Record<string, unknown> {
  const { phoneHome: asked, ...rest } = seed;
  if (asked === undefined) return rest;
  let origin: string;
  try {
    origin = new URL(asked.url).origin;
  } catch {
    origin = '(not a URL)';
  }
  return { ...rest, phoneHome: { origin, post: asked.post, tries: asked.tries } };
}
