// SPEC 27: every operation of the served OpenAPI document has a unique
// operationId, and a client generated from the document (openapi-typescript
// for the types, openapi-fetch for the calls) compiles a right call, refuses
// a wrong field type naming the field, and the right call works against
// the running service.
import { expect } from 'chai';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import { TSC, TSX_LOADER, runNode } from '../support/node-run.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const repo = join(import.meta.dirname, '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A caller's file: the typed client over the generated paths, one createVm with the body given. */
function callerSource(body: string): string {
  return [
    "import createClient from 'openapi-fetch';",
    "import type { operations, paths } from './api.js';",
    'const client = createClient<paths>({ baseUrl: `${process.env.API_URL ?? ""}/v1`, headers: { authorization: `Bearer ${process.env.API_TOKEN ?? ""}` } });',
    `const { data, error, response } = await client.POST('/vms', { body: ${body} });`,
    // The operation by its operationId, as a generated client names it.
    "type Enqueued = operations['createVm']['responses'][202]['content']['application/json'];",
    'const jobId: Enqueued["jobId"] | undefined = data?.jobId;',
    'process.stdout.write(JSON.stringify({ status: response.status, jobId, error }));',
    '',
  ].join('\n');
}

describe('OpenAPI operationIds and a generated client (SPEC 27)', function () {
  this.timeout(180_000);
  let web: TestWeb;
  let url: string;
  let dir: string;
  let document: OpenAPI3;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-openapi-client-'));
    web = await buildTestWeb();
    await web.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(web.app.server.address() as AddressInfo).port}`;
    const res = await fetch(`${url}/v1/openapi.json`, { headers: { authorization: `Bearer ${web.token}` } });
    expect(res.status).to.equal(200);
    document = (await res.json()) as OpenAPI3;
    // The generated files resolve openapi-fetch and @types/node from the repository's packages.
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  });
  after(async () => {
    // The temporary directory goes first, whatever the web app's close does.
    rmSync(dir, { recursive: true, force: true });
    await web.close();
  });

  it('every operation of the served document has a unique camelCase operationId', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = (item as Record<string, { operationId?: string } | undefined>)[method];
        if (operation === undefined) continue;
        expect(operation.operationId, `${method.toUpperCase()} ${path}`).to.be.a('string').and.match(/^[a-z][A-Za-z0-9]*$/);
        ids.push(operation.operationId ?? '');
      }
    }
    expect(new Set(ids).size, ids.join(', ')).to.equal(ids.length);
    expect(ids).to.include.members(['createVm', 'listVms', 'getVm', 'deleteVm', 'checkVm', 'getJob', 'streamJobEvents']);
  });

  it('openapi-typescript types from it compile a right createVm call through openapi-fetch, and refuse a wrong field type naming the field', async () => {
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document)));
    writeFileSync(join(dir, 'good.ts'), callerSource("{ name: 'generated-1', cores: 2, memoryMiB: 1024 }"));
    writeFileSync(join(dir, 'bad.ts'), callerSource("{ name: 'generated-2', cores: 'two' }"));
    const options = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['good.ts', 'bad.ts'] }));

    // One compilation of both (half the time of two): its one error is the wrong call's, so the right one compiled.
    // --pretty prints the related information that names the property; the colours go.
    const compiled = await runNode([TSC, '-p', 'tsconfig.json', '--pretty', 'true'], dir);
    const said = stripVTControlCharacters(compiled.stdout);
    expect(compiled.code, 'the wrong call compiled').to.not.equal(0);
    expect(said, said).to.match(/bad\.ts:4:\d+ - error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(said, said).to.contain("The expected type comes from property 'cores'");
    expect(said, said).to.match(/Found 1 error in bad\.ts:4/);
  });

  it('the right call, run, enqueues the create on the running service (202, then 200 for the same request)', async () => {
    const env = { API_URL: url, API_TOKEN: web.token };
    const first = await runNode(['--import', TSX_LOADER, join(dir, 'good.ts')], dir, env);
    expect(first.code, first.stderr).to.equal(0);
    const answer = JSON.parse(first.stdout) as { status: number; jobId?: string };
    expect(answer.status).to.equal(202);
    expect(answer.jobId).to.equal('create-generated-1-1');
    expect((await web.queues.vm.getJob('create-generated-1-1'))?.data).to.include({ name: 'generated-1', cores: 2, memoryMiB: 1024 });
    const again = await runNode(['--import', TSX_LOADER, join(dir, 'good.ts')], dir, env);
    expect(JSON.parse(again.stdout)).to.include({ status: 200, jobId: 'create-generated-1-1' });
  });
});
