// A recording's index.json (SPEC 33): what `verify --record` writes beside
// its fixture files, and what a replay reads. The replay-only fields
// (`setup`, `auth`, `poll`, `sim`, `notCovered`) let a hand-written index,
// the seeds' (fixtures/recordings/seeds/), name its simulator set-up.
import type { HostInventory } from '../types.js';

export const RECORDING_FORMAT = 'pve-provisioner-recording/1';

export type Params = Record<string, string | number>;

/** One `/_sim/` call a replay makes before an exchange: a fault, a planted VM, a storage change. */
export interface SimSetupCall {
  method: 'POST' | 'DELETE';
  /** Under /_sim/ (`/_sim/faults`, `/_sim/vms`, `/_sim/storages`). */
  path: string;
  body?: unknown;
}

export interface IndexedExchange {
  /** The fixture file, relative to the index (`0003-get-nodes-pve1-status.json`, or `../../version.json`). */
  file: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under /api2/json, placeholders filled. */
  path: string;
  query?: Params;
  form?: Params;
  /** An upload: its file name and size; the content is never kept. */
  upload?: { filename: string; size: number };
  /** The step it belongs to (a RecordedStep's name), and its node. */
  step?: string;
  node?: string;
  /** Its start, ms after the run's start, and how long until its answer ended. */
  startMs: number;
  ms: number;
  /** Replay only: simulator calls to make before this request. */
  setup?: SimSetupCall[];
  /** Replay only: send no token, or a wrong one (a 401 fixture). */
  auth?: 'none' | 'wrong';
  /** Replay only: repeat this request until its answer matches (a task that must end first). */
  poll?: boolean;
}

/** Simulator settings a replay starts with (the seeds' keeps a clone running). */
export interface ReplaySimSettings {
  timeScale?: number;
  cloneSeconds?: number;
  taskSeconds?: number;
  agentSeconds?: number;
  statdSeconds?: number;
}

export interface RecordingIndex {
  format: typeof RECORDING_FORMAT;
  /** When the run started (ISO 8601). */
  recordedAt: string;
  inventory: HostInventory;
  steps: { name: string; node?: string; ms: number }[];
  exchanges: IndexedExchange[];
  sim?: ReplaySimSettings;
  /** What the recording is, in words (a hand-written one says so). */
  about?: string;
  /** Fixtures beside the recording that no simulator request produces, and why. */
  notCovered?: { file: string; why: string }[];
}
