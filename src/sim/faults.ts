// Faults injected on demand through POST /_sim/faults (SPEC 8, SPEC 22):
// 5xx answers at a rate on paths matching a pattern, dropped connections,
// added latency, slow tasks, tasks that fail with a given text, and the
// Datastore.Allocate refusal of F13.

export interface ErrorFault {
  /** Regular expression on the request path (`/api2/json/...`). */
  path: string;
  /** 0 to 1. */
  rate: number;
  /** 500 by default; 502, 503, 504, 595 and 596 come with no body, as pveproxy sends them. */
  status?: number;
  /** Reason phrase and body message; each status has a default. */
  message?: string;
  /** Only these methods; all when absent. */
  methods?: string[];
}

export interface DropFault {
  path: string;
  rate: number;
  /** Drop after the request took effect (the answer is lost) instead of before. */
  afterEffect?: boolean;
  methods?: string[];
}

export interface TaskFailure {
  /** Task type: qmclone, qmstart, qmstop, qmdestroy, resize, imgcopy, imgdel. */
  type: string;
  exitstatus: string;
  /** How many tasks of that type fail; every one when absent. */
  count?: number;
}

/** A privilege the token lacks (SPEC 33): everywhere, or at `path` and every path below it. */
export interface DeniedPrivilege {
  privilege: string;
  /** An ACL path (`/vms/9001`, `/storage/local-lvm`); absent: every path. */
  path?: string;
}

export interface FaultSet {
  errors?: ErrorFault[];
  drops?: DropFault[];
  /** Added to every API answer, on top of sim.latencyMs. */
  latencyMs?: number;
  /** Multiplies every task duration. */
  slowTasks?: number;
  failTasks?: TaskFailure[];
  /** Storages whose volume delete answers 403 for want of Datastore.Allocate (F13). */
  denyAllocate?: string[];
  /**
   * Storages without Datastore.AllocateSpace: a clone onto them answers
   * 403 before its task, a resize of a disk on them fails inside its task
   * with `403 Permission check failed (/storage/<s>, Datastore.AllocateSpace)`
   * (audit 4c).
   */
  denyAllocateSpace?: string[];
  /** Nodes that are down: listed `offline`, their VMs `unknown`, calls proxied to them 595 No route to host. */
  offlineNodes?: string[];
  /**
   * Privileges the token lacks (SPEC 33): left out of `GET /access/permissions`
   * and refused where a route's schema check asks for them (permissions.ts).
   */
  denyPrivileges?: DeniedPrivilege[];
}

const BARE_REASONS: Record<number, string> = {
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  595: 'No route to host',
  596: 'Connection timed out',
};

export function isBareStatus(status: number): boolean {
  return status in BARE_REASONS;
}

export function defaultFaultMessage(status: number): string {
  return BARE_REASONS[status] ?? 'sim: injected fault';
}

function check(condition: boolean, problem: string, problems: string[]): void {
  if (!condition) problems.push(problem);
}

function isRate(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= 1;
}

function isPattern(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}

/** Every problem of a POST /_sim/faults body; empty when it is a FaultSet. */
export function faultSetProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['the body must be a JSON object'];
  const set = body as Record<string, unknown>;
  const known = ['errors', 'drops', 'latencyMs', 'slowTasks', 'failTasks', 'denyAllocate', 'denyAllocateSpace', 'offlineNodes', 'denyPrivileges'];
  for (const key of Object.keys(set)) check(known.includes(key), `${key}: unknown fault (known: ${known.join(', ')})`, problems);
  const listOf = (key: string, each: (item: Record<string, unknown>, at: string) => void): void => {
    const value = set[key];
    if (value === undefined) return;
    if (!Array.isArray(value)) return problems.push(`${key}: must be a list`) as unknown as void;
    value.forEach((item: unknown, i) => {
      if (typeof item !== 'object' || item === null) problems.push(`${key}[${i}]: must be an object`);
      else each(item as Record<string, unknown>, `${key}[${i}]`);
    });
  };
  listOf('errors', (e, at) => {
    check(isPattern(e.path), `${at}.path: must be a regular expression`, problems);
    check(isRate(e.rate), `${at}.rate: must be a number from 0 to 1`, problems);
    check(e.status === undefined || (Number.isInteger(e.status) && (e.status as number) >= 500 && (e.status as number) <= 599), `${at}.status: must be a 5xx status`, problems);
    check(e.message === undefined || typeof e.message === 'string', `${at}.message: must be a string`, problems);
  });
  listOf('drops', (d, at) => {
    check(isPattern(d.path), `${at}.path: must be a regular expression`, problems);
    check(isRate(d.rate), `${at}.rate: must be a number from 0 to 1`, problems);
  });
  listOf('failTasks', (f, at) => {
    check(typeof f.type === 'string', `${at}.type: must be a task type such as qmstart`, problems);
    check(typeof f.exitstatus === 'string' && f.exitstatus !== '' && f.exitstatus !== 'OK', `${at}.exitstatus: must be an error text`, problems);
    check(f.count === undefined || (Number.isInteger(f.count) && (f.count as number) > 0), `${at}.count: must be a positive integer`, problems);
  });
  listOf('denyPrivileges', (d, at) => {
    check(typeof d.privilege === 'string' && d.privilege !== '', `${at}.privilege: must be a privilege name such as VM.Clone`, problems);
    check(d.path === undefined || (typeof d.path === 'string' && d.path.startsWith('/')), `${at}.path: must be an ACL path starting with /`, problems);
  });
  check(set.latencyMs === undefined || (typeof set.latencyMs === 'number' && set.latencyMs >= 0), 'latencyMs: must be a number of milliseconds', problems);
  check(set.slowTasks === undefined || (typeof set.slowTasks === 'number' && set.slowTasks > 0), 'slowTasks: must be a positive multiplier', problems);
  check(set.denyAllocate === undefined || (Array.isArray(set.denyAllocate) && set.denyAllocate.every((s) => typeof s === 'string')), 'denyAllocate: must be a list of storage ids', problems);
  check(set.denyAllocateSpace === undefined || (Array.isArray(set.denyAllocateSpace) && set.denyAllocateSpace.every((s) => typeof s === 'string')), 'denyAllocateSpace: must be a list of storage ids', problems);
  check(set.offlineNodes === undefined || (Array.isArray(set.offlineNodes) && set.offlineNodes.every((s) => typeof s === 'string')), 'offlineNodes: must be a list of node names', problems);
  return problems;
}

interface Rule {
  path: string;
  methods?: string[];
}

export class Faults {
  private set: FaultSet = {};
  private readonly failuresUsed = new Map<TaskFailure, number>();
  /** Each rule's pattern, compiled once when the set is replaced. */
  private patterns = new Map<Rule, RegExp>();

  constructor(private readonly random: () => number = Math.random) {}

  replace(set: FaultSet): void {
    this.set = set;
    this.failuresUsed.clear();
    this.patterns = new Map([...(set.errors ?? []), ...(set.drops ?? [])].map((rule): [Rule, RegExp] => [rule, new RegExp(rule.path)]));
  }

  private applies(rule: Rule, method: string, path: string): boolean {
    return (rule.methods === undefined || rule.methods.includes(method)) && (this.patterns.get(rule)?.test(path) ?? false);
  }

  current(): FaultSet {
    return this.set;
  }

  errorFor(method: string, path: string): ErrorFault | undefined {
    return this.set.errors?.find((e) => this.applies(e, method, path) && this.random() < e.rate);
  }

  dropFor(method: string, path: string): DropFault | undefined {
    return this.set.drops?.find((d) => this.applies(d, method, path) && this.random() < d.rate);
  }

  get latencyMs(): number {
    return this.set.latencyMs ?? 0;
  }

  get taskFactor(): number {
    return this.set.slowTasks ?? 1;
  }

  nodeOffline(node: string): boolean {
    return this.set.offlineNodes?.includes(node) ?? false;
  }

  allocateDenied(storage: string): boolean {
    return (this.set.denyAllocate?.includes(storage) ?? false) || this.privilegeDenied('Datastore.Allocate', `/storage/${storage}`);
  }

  allocateSpaceDenied(storage: string): boolean {
    return (this.set.denyAllocateSpace?.includes(storage) ?? false) || this.privilegeDenied('Datastore.AllocateSpace', `/storage/${storage}`);
  }

  /** Whether `denyPrivileges` takes this privilege away at this ACL path (a denied path covers the paths below it). */
  privilegeDenied(privilege: string, path: string): boolean {
    return (this.set.denyPrivileges ?? []).some((d) => d.privilege === privilege && coversPath(d.path, path));
  }

  /** The failure text for the next task of this type, consuming one of its count. */
  takeTaskFailure(type: string): string | undefined {
    const rule = this.set.failTasks?.find((f) => f.type === type && (f.count === undefined || (this.failuresUsed.get(f) ?? 0) < f.count));
    if (rule === undefined) return undefined;
    this.failuresUsed.set(rule, (this.failuresUsed.get(rule) ?? 0) + 1);
    return rule.exitstatus;
  }
}

/** A denial at `denied` reaches `path` when it is the same path or one above it (ACLs propagate down). */
function coversPath(denied: string | undefined, path: string): boolean {
  if (denied === undefined || denied === '/') return true;
  const base = denied.replace(/\/+$/, '');
  return path === base || path.startsWith(`${base}/`);
}
