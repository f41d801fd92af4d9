// SPEC 27, SPEC 32: with several clusters GET /v1/images lists an image
// once, its nodes from every cluster that serves it, each naming its
// cluster and carrying the health found on that cluster's node of that
// name (two clusters may both have a node pve1); the default image is the
// first cluster's. The one-cluster form's entries name no cluster.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import type { NodeHealth } from '../../src/provider/types.js';
import { listImages } from '../../src/web/image-list.js';

const images = (templates: Record<string, number>) => [{ name: 'deb', templates }, { name: 'alp', templates: { pve1: 9100 } }];

describe('GET /v1/images with several clusters (SPEC 27, SPEC 32)', () => {
  it('merges an image across clusters, each node naming its cluster and its own health', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: {
          clusters: [
            { name: 'a', url: 'sim', images: images({ pve1: 9001, pve2: 9002 }) },
            { name: 'b', url: 'sim', images: [{ name: 'deb', templates: { pve1: 9001 } }] },
          ],
        },
      },
    });
    const nodes: NodeHealth[] = [
      { node: 'pve1', cluster: 'a', ok: true, reasons: [], images: [{ image: 'deb', ok: true, reasons: [] }] },
      { node: 'pve1', cluster: 'b', ok: false, reasons: [], images: [{ image: 'deb', ok: false, reasons: [{ reason: 'TemplateNotFound', detail: 'no 9001' }] }] },
    ];
    const listed = listImages(config, { at: '2026-12-03T00:00:00.000Z', nodes });
    expect(listed.map((image) => [image.name, image.default])).to.deep.equal([['deb', true], ['alp', false]]);
    const deb = listed[0]!;
    expect(deb.nodes.map((node) => [node.cluster, node.node, node.health?.ok])).to.deep.equal([['a', 'pve1', true], ['a', 'pve2', undefined], ['b', 'pve1', false]]);
  });

  it('names no cluster in the one-cluster form', () => {
    const listed = listImages(loadConfig({ env: {} }), undefined);
    expect(listed[0]?.nodes.every((node) => !('cluster' in node))).to.equal(true);
  });
});
