// Regression (found by bad-input.test.ts, SPEC 22 "refused with the field
// and the reason"): a name over 100 characters in the path of DELETE
// /v1/vms/:name or POST /v1/vms/:name/check got fastify's router answer
// (414, FST_ERR_MAX_PARAM_LENGTH, no fields) instead of the validator's
// 400 naming `name`, as every other bad name gets.
import { expect } from 'chai';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';

describe('a long name in the path is refused naming the field (SPEC 22, SPEC 1)', () => {
  let web: TestWeb;
  before(async () => {
    web = await buildTestWeb();
  });
  after(() => web.close());

  for (const [method, url] of [
    ['DELETE', `/v1/vms/${'a'.repeat(101)}`],
    ['POST', `/v1/vms/${'a'.repeat(300)}/check`],
  ] as const) {
    it(`${method} ${url.slice(0, 20)}... answers 400 naming name`, async () => {
      const res = await web.app.inject({ method, url, headers: { authorization: `Bearer ${web.token}` } });
      expect(res.statusCode, res.body.slice(0, 200)).to.equal(400);
      expect(res.json<{ fields?: { field: string }[] }>().fields?.map((f) => f.field)).to.deep.equal(['name']);
    });
  }
});
