// The number formats: VMIDs, counts, durations and fractions. A text (an
// environment variable) is taken as the number it spells.
import type { Format } from 'convict';
import { isInt } from './name-patterns.js';

export { isInt };

export const isVmid = (value: unknown): value is number => isInt(value) && value >= 100 && value <= 999999999;

const toNumber = (value: unknown): number => Number(value);

export const NUMBER_FORMATS: readonly Format[] = [
  {
    name: 'vmid',
    coerce: toNumber,
    validate(value: unknown) {
      if (!isVmid(value)) throw new Error('must be a VMID, an integer from 100 to 999999999');
    },
  },
  {
    name: 'positive-int',
    coerce: toNumber,
    validate(value: unknown) {
      if (!isInt(value) || value < 1) throw new Error('must be a whole number of at least 1');
    },
  },
  {
    name: 'whole-number',
    coerce: toNumber,
    validate(value: unknown) {
      if (!isInt(value) || value < 0) throw new Error('must be a whole number of at least 0');
    },
  },
  {
    name: 'non-negative-number',
    coerce: toNumber,
    validate(value: unknown) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error('must be a number of at least 0');
    },
  },
  {
    name: 'unit-fraction',
    coerce: toNumber,
    validate(value: unknown) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1) throw new Error('must be a number above 0 and at most 1');
    },
  },
];
