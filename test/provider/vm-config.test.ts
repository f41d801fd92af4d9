// The config rules Create relies on: net0 rewrite (decision on the VLAN),
// boot disk skipping ide2 (F19, correction 8), cloud-init drives, sizes,
// the template check (SPEC 13 step 2), the config write (step 5).
import { expect } from 'chai';
import { bootDisk, cloudInitDrive, diskSizeBytes, GIB, parseNet0, rewriteNet0 } from '../../src/provider/vm-config.js';
import { templateProblem } from '../../src/provider/template.js';
import { configParams } from '../../src/provider/configure.js';
import type { VmConfig } from '../../src/proxmox/api.js';
import { fixtureData } from '../support/fixtures.js';

const template = fixtureData<VmConfig>('config_template_9001');
const configured = fixtureData<VmConfig>('config_clone_configured');
const node = { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' };
const spec = { name: 'proxy-a', uid: 'u', cores: 4, memoryMiB: 4096, diskGiB: 10, waitForAddress: true };

describe('vm config rules', () => {
  it('rewrites net0 as on the host: MAC kept, tag=4 appended (set_config_vlan)', () => {
    expect(rewriteNet0('virtio=BC:24:11:EE:48:83,bridge=vmbr0', { vlanTag: 4 })).to.equal(configured.net0);
    expect(rewriteNet0('virtio=BC:24:11:EE:48:83,bridge=vmbr0,tag=2,firewall=1', { bridge: 'vmbr1', vlanTag: 4 })).to.equal(
      'virtio=BC:24:11:EE:48:83,bridge=vmbr1,tag=4,firewall=1',
    );
    expect(parseNet0(String(template.net0)).mac).to.equal('BC:24:11:5A:3C:01');
  });

  it('the boot disk is the first in the boot order that is not ide2 (order=scsi0;ide2, F19)', () => {
    expect(bootDisk(configured)).to.equal('scsi0');
    expect(bootDisk({ boot: 'order=ide2;net0;virtio0', ide2: 'none,media=cdrom', virtio0: 'x,size=2G' })).to.equal('virtio0');
    expect(bootDisk({ scsi1: 'x,size=2G', ide2: 'none,media=cdrom' })).to.equal('scsi1');
  });

  it('finds a Proxmox cloud-init drive in any slot, and sizes in bytes', () => {
    expect(cloudInitDrive({ ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom' })).to.equal('ide2');
    expect(cloudInitDrive({ scsi1: 'local-lvm:vm-9000-cloudinit,media=cdrom' })).to.equal('scsi1');
    expect(cloudInitDrive(configured)).to.equal(undefined);
    expect(diskSizeBytes(template.scsi0)).to.equal(3 * GIB);
    expect(diskSizeBytes('x,size=512M')).to.equal(512 * 2 ** 20);
  });

  it('accepts template 9001 (F19) and names what is wrong with others', () => {
    expect(templateProblem(template, 10)).to.equal(undefined);
    expect(templateProblem(template, 3)).to.equal(undefined);
    expect(templateProblem(template, 2)).to.match(/scsi0 is 3\.0 GiB, larger than the 2 GiB asked/);
    expect(templateProblem({ ...template, ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom', net0: 'virtio=X,bridge=vmbr0,tag=4' }, 10)).to.match(/cloud-init/);
  });

  it('the config write carries cores, memory, agent, merged tags and the seed on ide2', () => {
    expect(configParams(spec, node, template, 'pve_provisioner', 'proxy-seeds:iso/proxy-a-seed.iso')).to.deep.equal({
      cores: 4,
      memory: 4096,
      agent: '1',
      tags: 'debian;pve_provisioner',
      ide2: 'proxy-seeds:iso/proxy-a-seed.iso,media=cdrom',
    });
    const vlan = configParams({ ...spec, vlanTag: 7 }, { ...node, vlanTag: 4 }, template, 'pve_provisioner', 'v');
    expect(vlan.net0).to.equal('virtio=BC:24:11:5A:3C:01,bridge=vmbr0,tag=7');
  });
});
