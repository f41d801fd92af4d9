// SPEC 27: GET /v1/vms pages (limit, cursor) and filters (state, node),
// against the running web app on the real Redis: 250 names in pages of
// 100, pages that stay right while names come and go between them, each
// filter, and every bad parameter a 400 naming it; the producer library's
// listVms the same.
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '../../src/client.js';
import { keys } from '../../src/redis-keys.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

interface Listed {
  name: string;
  state: string;
  lastKnown?: { node?: string };
}

interface Page {
  vms: Listed[];
  nextCursor: string | null;
}

interface ErrorAnswer {
  error: string;
  fields?: { field: string; message: string }[];
}

const nameOf = (i: number): string => `page-${String(i).padStart(3, '0')}`;

describe('GET /v1/vms pages and filters (SPEC 27)', function () {
  this.timeout(120_000);
  let web: TestWeb;
  let url: string;
  let registry: DesiredStateRegistry;

  beforeEach(async () => {
    web = await buildTestWeb();
    await web.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(web.app.server.address() as AddressInfo).port}`;
    registry = new DesiredStateRegistry(web.redis, web.prefix, web.config.registry.tombstoneSeconds);
  });
  afterEach(() => web.close());

  async function get(query: string): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${url}/v1/vms${query}`, { headers: { authorization: `Bearer ${web.token}` } });
    return { status: res.status, body: await res.json() };
  }

  async function page(query: string): Promise<Page> {
    const res = await get(query);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Page;
  }

  /** Every page from the first, `between` run after each page but the last. */
  async function allPages(query: string, between: (pageIndex: number) => Promise<void> = () => Promise.resolve()): Promise<Page[]> {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page(`?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      pages.push(next);
      cursor = next.nextCursor;
      if (cursor !== null) await between(pages.length - 1);
    } while (cursor !== null && pages.length < 50);
    return pages;
  }

  async function create(names: string[]): Promise<void> {
    for (let i = 0; i < names.length; i += 25) await Promise.all(names.slice(i, i + 25).map((name) => web.client.createVm({ name, uid: `uid-${name}` })));
  }

  it('250 names in pages of 100 come as 100, 100 and 50, in name order, each once, the last page with nextCursor null', async () => {
    const names = Array.from({ length: 250 }, (_, i) => nameOf(i));
    await create([...names].reverse());
    const pages = await allPages('limit=100');
    expect(pages.map((p) => p.vms.length)).to.deep.equal([100, 100, 50]);
    expect(pages.map((p) => p.nextCursor === null)).to.deep.equal([false, false, true]);
    const listed = pages.flatMap((p) => p.vms.map((vm) => vm.name));
    expect(listed).to.deep.equal(names);
    // No limit is 100 a page; 1000 is allowed.
    expect((await page('')).vms.map((vm) => vm.name)).to.deep.equal(names.slice(0, 100));
    expect((await page('?limit=1000')).vms).to.have.length(250);
  });

  it('names added and removed between pages: none twice, none skipped of those there throughout', async () => {
    const names = Array.from({ length: 250 }, (_, i) => nameOf(i * 2 + 1));
    await create(names);
    const removed = new Set<string>();
    const pages = await allPages('limit=100', async (pageIndex) => {
      // Before and after the cursor: new names on both sides, a removed name on both sides (an expired tombstone).
      await create([`page-${pageIndex}00a`, `page-${pageIndex}99z`, 'page-000', `page-${pageIndex + 3}50`]);
      for (const gone of [nameOf(pageIndex * 100 + 41), nameOf(pageIndex * 200 + 301)]) {
        await web.redis.del(keys.desired(web.prefix, gone));
        removed.add(gone);
      }
    });
    const listed = pages.flatMap((p) => p.vms.map((vm) => vm.name));
    expect(new Set(listed).size, 'a name listed twice').to.equal(listed.length);
    expect(listed, 'a page went back').to.deep.equal([...listed].sort());
    const throughout = names.filter((name) => !removed.has(name));
    expect(throughout.filter((name) => !listed.includes(name)), 'skipped').to.deep.equal([]);
  });

  it("a cursor whose name was removed since goes on right after that name, and a name added just after it is seen", async () => {
    const names = Array.from({ length: 10 }, (_, i) => nameOf(i));
    await create(names);
    const first = await page('?limit=3');
    expect(first.vms.map((vm) => vm.name)).to.deep.equal(names.slice(0, 3));
    // The cursor's own name goes entirely (record and index), and one sorting right after it comes.
    await web.redis.del(keys.desired(web.prefix, nameOf(2)));
    await web.redis.srem(keys.desiredIndex(web.prefix), nameOf(2));
    await create([`${nameOf(2)}a`]);
    const second = await page(`?limit=3&cursor=${first.nextCursor ?? ''}`);
    expect(second.vms.map((vm) => vm.name)).to.deep.equal([`${nameOf(2)}a`, nameOf(3), nameOf(4)]);
  });

  it('state and node filter the names, page after page, and a filter matching nothing is one empty page', async () => {
    const names = Array.from({ length: 30 }, (_, i) => nameOf(i));
    await create(names);
    const deleted = names.filter((_, i) => i % 3 === 0);
    for (const name of deleted) await web.client.deleteVm({ name });
    const onPve2 = names.filter((_, i) => i % 4 === 1);
    for (const name of names) await registry.recordLastKnown(name, { state: 'Running', node: onPve2.includes(name) ? 'pve2' : 'pve1', at: new Date().toISOString() });

    const absent = (await allPages('state=absent&limit=4')).flatMap((p) => p.vms);
    expect(absent.map((vm) => vm.name)).to.deep.equal(deleted);
    expect(absent.every((vm) => vm.state === 'absent')).to.equal(true);
    const presentPages = await allPages('state=present&limit=7');
    // The filter applies before the limit: every page but the last is full.
    expect(presentPages.map((p) => p.vms.length)).to.deep.equal([7, 7, 6]);
    const present = presentPages.flatMap((p) => p.vms.map((vm) => vm.name));
    expect(present).to.deep.equal(names.filter((name) => !deleted.includes(name)));
    const pve2 = (await allPages('node=pve2&limit=3')).flatMap((p) => p.vms);
    expect(pve2.map((vm) => vm.name)).to.deep.equal(onPve2);
    expect(pve2.every((vm) => vm.lastKnown?.node === 'pve2')).to.equal(true);
    const both = (await allPages('node=pve2&state=absent&limit=2')).flatMap((p) => p.vms.map((vm) => vm.name));
    expect(both).to.deep.equal(onPve2.filter((name) => deleted.includes(name)));
    expect(await page('?node=pve9')).to.deep.equal({ vms: [], nextCursor: null });
  });

  it('each bad parameter is a 400 naming it', async () => {
    await create([nameOf(1)]);
    const bad: [string, string][] = [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=-5', 'limit'],
      ['?limit=2&limit=3', 'limit'],
      ['?cursor=not%20a%20cursor', 'cursor'],
      [`?cursor=${Buffer.from('Bad_Name').toString('base64url')}`, 'cursor'],
      ['?cursor=', 'cursor'],
      ['?state=running', 'state'],
      ['?node=', 'node'],
    ];
    for (const [query, field] of bad) {
      const res = await get(query);
      expect(res.status, query).to.equal(400);
      const answer = res.body as ErrorAnswer;
      expect(answer.error, query).to.equal('ValidationError');
      expect(answer.fields?.map((f) => f.field), query).to.deep.equal([field]);
    }
  });

  it('the producer library pages the same way and refuses the same values, naming the field', async () => {
    const names = Array.from({ length: 5 }, (_, i) => nameOf(i));
    await create(names);
    const first = await web.client.listVms({ limit: 2 });
    expect(first.vms.map((vm) => vm.name)).to.deep.equal(names.slice(0, 2));
    const second = await web.client.listVms({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.vms.map((vm) => vm.name)).to.deep.equal(names.slice(2, 4));
    expect(await page(`?limit=2&cursor=${second.nextCursor ?? ''}`)).to.deep.include({ nextCursor: null });
    for (const [query, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
      [{ cursor: 'x y' }, 'cursor'],
      [{ state: 'gone' }, 'state'],
      [{ limt: 5 }, 'limt'],
    ] as const) {
      const err = await web.client.listVms(query as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(query)).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal([field]);
    }
  });
});
