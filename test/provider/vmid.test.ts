// SPEC 11: provider id, the uid-derived VMID, the mark, the tag rules (F9).
import { expect } from 'chai';
import { parseProviderId, probeSequence, providerId, vmidForUid } from '../../src/provider/vmid.js';
import { formatMark, isOurs, parseMark, MARK_FIRST_LINE } from '../../src/provider/mark.js';
import { hasTag, isValidTag, mergeTags, parseTags } from '../../src/provider/tags.js';
import { fixtureData } from '../support/fixtures.js';
import type { VmConfig } from '../../src/proxmox/api.js';

describe('identity (SPEC 11)', () => {
  it('provider id is vms/<vmid>/<name> and parses back', () => {
    expect(providerId(123456, 'proxy-a')).to.equal('vms/123456/proxy-a');
    expect(parseProviderId('vms/123456/proxy-a')).to.deep.equal({ vmid: 123456, name: 'proxy-a' });
    expect(parseProviderId('vms/x/proxy-a')).to.equal(undefined);
  });

  it('the VMID is a stable hash of the uid inside the range', () => {
    const range = { min: 100000, max: 199999 };
    const a = vmidForUid('uid-a', range);
    expect(vmidForUid('uid-a', range)).to.equal(a);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const v = vmidForUid(`uid-${i}`, range);
      expect(v).to.be.within(range.min, range.max);
      seen.add(v);
    }
    expect(seen.size).to.be.greaterThan(190);
  });

  it('probing walks forward and wraps inside the range', () => {
    const range = { min: 100, max: 102 };
    const seq = probeSequence('x', range);
    expect(seq).to.have.length(3);
    expect(new Set(seq)).to.deep.equal(new Set([100, 101, 102]));
    const first = seq[0]!;
    expect(seq[1]).to.equal(first === 102 ? 100 : first + 1);
  });
});

describe('mark (SPEC 11, F10, F11)', () => {
  it('is a fixed first line, the uid and written-at-create in RFC 3339', () => {
    const text = formatMark('u-1', new Date('2026-11-30T10:00:00Z'));
    expect(text.split('\n')).to.deep.equal([MARK_FIRST_LINE, 'uid: u-1', 'written-at-create: 2026-11-30T10:00:00.000Z']);
    expect(parseMark(text)).to.deep.equal({ uid: 'u-1', writtenAtCreate: '2026-11-30T10:00:00.000Z' });
  });

  it('reads the mark of the fixture clone', () => {
    const config = fixtureData<VmConfig>('config_clone_ours');
    expect(parseMark(config.description)?.uid).to.equal('3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80');
    expect(isOurs(config, 'proxy-reconaaaaaaaaaaa', '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80')).to.equal(true);
    expect(isOurs(config, 'proxy-other', '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80')).to.equal(false);
    expect(isOurs(config, 'proxy-reconaaaaaaaaaaa', 'other')).to.equal(false);
  });

  it('tolerates CRLF, spaces, blank lines and notes added below', () => {
    const text = `\r\n  ${MARK_FIRST_LINE}  \r\nwritten-at-create:  2026-01-01T00:00:00Z\r\nuid:   u-2 \r\n\r\nnote: do not touch\r\n`;
    expect(parseMark(text)).to.deep.equal({ uid: 'u-2', writtenAtCreate: '2026-01-01T00:00:00Z' });
  });

  it('is no mark without the exact first line', () => {
    expect(parseMark('uid: u-1')).to.equal(undefined);
    expect(parseMark('managed-by: someone-else\nuid: u-1')).to.equal(undefined);
    expect(parseMark(undefined)).to.equal(undefined);
    expect(parseMark(`${MARK_FIRST_LINE}\nwritten-at-create: x`)).to.deep.equal({ writtenAtCreate: 'x' });
  });
});

describe('tags (F9)', () => {
  it('splits on ; and compares case-folded', () => {
    expect(parseTags('debian;Pve_Provisioner')).to.deep.equal(['debian', 'Pve_Provisioner']);
    expect(hasTag('debian;PVE_PROVISIONER', 'pve_provisioner')).to.equal(true);
    expect(hasTag('debian;pve_provisioner2', 'pve_provisioner')).to.equal(false);
    expect(hasTag(undefined, 'pve_provisioner')).to.equal(false);
  });

  it("merging keeps the template's tags and adds ours once", () => {
    expect(mergeTags('debian', 'pve_provisioner')).to.equal('debian;pve_provisioner');
    expect(mergeTags('debian;PVE_Provisioner', 'pve_provisioner')).to.equal('debian;PVE_Provisioner');
    expect(mergeTags(undefined, 'pve_provisioner')).to.equal('pve_provisioner');
  });

  it('hyphens are valid, spaces and ! are not', () => {
    expect(isValidTag('proxy-operator')).to.equal(true);
    expect(isValidTag('bad tag')).to.equal(false);
    expect(isValidTag('bad!')).to.equal(false);
  });
});
