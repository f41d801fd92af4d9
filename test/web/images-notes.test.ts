// SPEC 27, SPEC 28: GET /v1/images shows the last health job's notes for
// an image on a node (a protected template), beside ok and reasons, and
// the OpenAPI document declares every field of that health view.
import { expect } from 'chai';
import { writeLastHealth } from '../../src/queue/health-store.js';
import type { NodeHealth } from '../../src/provider/types.js';
import type { ImageView } from '../../src/web/image-list.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const NOTE = "image default's template 9001 on node pve1 (t) is protected: every clone copies protection: 1, and the create deletes it in its config write";

interface HealthSchema {
  required: string[];
  properties: Record<string, { type?: string; items?: { type?: string } }>;
}

describe('GET /v1/images: the notes of the last health job (SPEC 27, SPEC 28)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });

  it("names a protected template in its image's health on that node, and leaves notes out where there are none", async () => {
    const nodes: NodeHealth[] = [
      { node: 'pve1', ok: true, reasons: [], images: [{ image: 'default', ok: true, reasons: [], notes: [NOTE] }], notes: [NOTE] },
      { node: 'pve2', ok: true, reasons: [], images: [{ image: 'default', ok: true, reasons: [] }] },
    ];
    await writeLastHealth(web.redis, web.prefix, nodes, new Date('2026-01-02T03:04:05Z'));
    const res = await web.app.inject({ method: 'GET', url: '/v1/images', headers: auth() });
    expect(res.statusCode).to.equal(200);
    const [image] = res.json<{ images: ImageView[] }>().images;
    expect(image?.nodes.map((n) => [n.node, n.health])).to.deep.equal([
      ['pve1', { ok: true, reasons: [], notes: [NOTE], at: '2026-01-02T03:04:05.000Z' }],
      ['pve2', { ok: true, reasons: [], at: '2026-01-02T03:04:05.000Z' }],
    ]);
  });

  it('the OpenAPI Image schema declares notes, an array of strings, and every field the health view answers', async () => {
    await writeLastHealth(web.redis, web.prefix, [{ node: 'pve1', ok: true, reasons: [], images: [{ image: 'default', ok: true, reasons: [], notes: [NOTE] }] }]);
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: auth() })).json<{
      components: { schemas: { Image: { properties: { nodes: { items: { properties: { health: HealthSchema } } } } } } };
    }>();
    const schema = doc.components.schemas.Image.properties.nodes.items.properties.health;
    expect(schema.properties.notes).to.deep.include({ type: 'array', items: { type: 'string' } });
    expect(schema.required).to.not.include('notes');
    const answered = (await web.app.inject({ method: 'GET', url: '/v1/images', headers: auth() })).json<{ images: ImageView[] }>();
    const health = answered.images[0]?.nodes[0]?.health;
    expect(Object.keys(health ?? {}).sort()).to.deep.equal(['at', 'notes', 'ok', 'reasons']);
    expect(Object.keys(schema.properties).sort()).to.deep.equal(Object.keys(health ?? {}).sort());
  });
});
