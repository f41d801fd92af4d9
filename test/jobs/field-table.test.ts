// SPEC 24 (one table of job fields for the API, the producer, the CLI and
// the worker) and SPEC 1 (bad input refused naming the field): cases are
// drawn from the create's field table itself (each bound, one above each
// max, memoryMiB 8, a lone surrogate, an emoji), then sent through the
// HTTP API, the producer library and `pve-provisioner enqueue`. The three
// doors and the provider's own check (what the worker would refuse) must
// give the same verdict, naming the same field.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInputFields, createSpecFields } from '../../src/job-table/create.schema.js';
import type { FieldSpec } from '../../src/job-table/fields.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { run as enqueue } from '../../src/cli/enqueue.js';
import { ValidationError } from '../../src/client.js';
import { PermanentError } from '../../src/errors.js';
import { validateCreateSpec } from '../../src/provider/create.js';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';

interface FieldCase {
  label: string;
  field: string;
  value: unknown;
  /** Bytes of the file the CLI reads, for a text field (a lone surrogate has no UTF-8 form). */
  fileBytes?: Buffer;
  accepted: boolean;
}

const EMOJI = '\u{1F600}'; // 4 bytes of UTF-8, 2 UTF-16 code units, 1 character
const LONE_SURROGATE_BYTES = Buffer.from([0xed, 0xa0, 0x80]); // what \uD800 would be, refused by every UTF-8 decoder

function casesOf(field: string, spec: FieldSpec, limits: ReturnType<typeof limitsFromConfig>): FieldCase[] {
  const { rule } = spec;
  const cases: FieldCase[] = [];
  const add = (label: string, value: unknown, accepted: boolean, fileBytes?: Buffer): void => {
    cases.push({ label: `${field} ${label}`, field, value, accepted, ...(fileBytes ? { fileBytes } : {}) });
  };
  if (rule.kind === 'integer') {
    const max = typeof rule.max === 'function' ? rule.max(limits) : rule.max;
    add(`at its min ${rule.min}`, rule.min, true);
    add(`at its max ${max}`, max, true);
    add(`one below its min (${rule.min - 1})`, rule.min - 1, false);
    add(`one above its max (${max + 1})`, max + 1, false);
  }
  // Free text only: a patterned field's maxBytes (name, uid, bridge) only restates what its pattern allows.
  if (rule.kind === 'string' && rule.maxBytes !== undefined && rule.pattern === undefined) {
    const emojis = EMOJI.repeat(rule.maxBytes / 4);
    add(`of exactly ${rule.maxBytes} bytes of emoji`, emojis, true);
    add(`of ${rule.maxBytes} ASCII bytes`, 'a'.repeat(rule.maxBytes), true);
    add(`one byte above ${rule.maxBytes} (emoji counted as 4)`, `${emojis}a`, false);
    add('with an emoji', `#cloud-config\n# ${EMOJI}\n`, true);
    add('with a lone surrogate', '#cloud-config\n\uD800', false, Buffer.concat([Buffer.from('#cloud-config\n'), LONE_SURROGATE_BYTES]));
  }
  if (rule.kind === 'string' && rule.oneOf) {
    for (const allowed of rule.oneOf(limits)) add(`configured ${allowed}`, allowed, true);
    add('not configured', 'pve9', false);
  }
  if (rule.kind === 'string' && rule.pattern && field !== 'name' && field !== 'uid') {
    add('with a shell character', 'vmbr0;x', false);
  }
  return cases;
}

describe('one field table for every door (SPEC 24, SPEC 1)', function () {
  this.timeout(120_000);
  let web: TestWeb;
  let dir: string;
  let cases: FieldCase[];
  let caseNumber = 0;

  before(async () => {
    web = await buildTestWeb();
    dir = mkdtempSync(join(tmpdir(), 'pvep-fields-'));
    const limits = limitsFromConfig(web.config);
    cases = [
      { label: 'memoryMiB 8 (the issue: Proxmox wants at least 16)', field: 'memoryMiB', value: 8, accepted: false },
      ...Object.entries(createInputFields).flatMap(([field, spec]) => casesOf(field, spec, limits)),
    ];
  });
  after(async () => {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh name per request: an accepted create holds its name (SPEC 2). */
  const input = (c: FieldCase): Record<string, unknown> => ({ name: `field-${(caseNumber += 1)}`, [c.field]: c.value });

  it('draws a case for every bounded field of the table', () => {
    const fields = new Set(cases.map((c) => c.field));
    for (const field of ['cores', 'memoryMiB', 'diskGiB', 'vlanTag', 'userData', 'networkConfig', 'node', 'image', 'bridge']) expect(fields, field).to.include(field);
  });

  it('the provider refuses, as Permanent naming the field, exactly what the table refuses (what the worker would refuse)', () => {
    // The lease fields (SPEC 31) are recorded at the accept, never in the job: the provider does not see them.
    for (const c of cases.filter((c) => Object.hasOwn(createSpecFields, c.field))) {
      const spec = { name: 'provider-1', uid: 'u-1', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, [c.field]: c.value } as Parameters<typeof validateCreateSpec>[1];
      let refused: unknown;
      try {
        validateCreateSpec({ config: web.config }, spec);
      } catch (err) {
        refused = err;
      }
      if (c.accepted) expect(refused, c.label).to.equal(undefined);
      else {
        expect(refused, c.label).to.be.instanceOf(PermanentError);
        expect((refused as Error).message, c.label).to.include(c.field);
      }
    }
  });

  it('the producer library refuses the same ones with a ValidationError naming the field, and takes the others', async () => {
    for (const c of cases) {
      const outcome = await web.client.createVm(input(c)).then(
        () => 'accepted',
        (err: unknown) => (err instanceof ValidationError ? err.fields.map((f) => f.field).join(',') : `threw ${String(err)}`),
      );
      expect(outcome, c.label).to.equal(c.accepted ? 'accepted' : c.field);
    }
  });

  it('the HTTP API answers 400 naming the field for the same ones, and 202 for the others', async () => {
    for (const c of cases) {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: input(c) });
      if (c.accepted) expect(res.statusCode, `${c.label}: ${res.body.slice(0, 200)}`).to.equal(202);
      else {
        expect(res.statusCode, c.label).to.equal(400);
        expect(res.json<{ fields: { field: string }[] }>().fields.map((f) => f.field), c.label).to.deep.equal([c.field]);
      }
    }
  });

  it('pve-provisioner enqueue exits 2 naming the flag and the field for the same ones, and 0 for the others', async () => {
    const table: Record<string, FieldSpec> = createInputFields;
    const flagOf = (field: string): string => `--${table[field]?.flag?.name ?? '?'}`;
    for (const c of cases) {
      const { name } = input(c) as { name: string };
      let value = String(c.value);
      if (table[c.field]?.flag?.file === true) {
        value = join(dir, `case-${caseNumber}`);
        writeFileSync(value, c.fileBytes ?? Buffer.from(String(c.value), 'utf8'));
      }
      let stderr = '';
      // A value that starts with "-" (ttlSeconds -1) is given as --flag=value, as a shell user would.
      const flag = value.startsWith('-') ? [`${flagOf(c.field)}=${value}`] : [flagOf(c.field), value];
      const code = await enqueue(['create', '--name', name, ...flag], {
        config: web.config,
        stdout: { write: () => true },
        stderr: { write: (text: string) => (stderr += text) },
      });
      expect(code, `${c.label}: ${stderr}`).to.equal(c.accepted ? 0 : 2);
      if (!c.accepted) expect(stderr, c.label).to.include(flagOf(c.field));
      if (!c.accepted && c.fileBytes === undefined) expect(stderr, c.label).to.include(`(${c.field})`);
    }
  });
});
