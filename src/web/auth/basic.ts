// Basic auth for Bull Board: registers @fastify/basic-auth in the scope
// it is given and guards every route of that scope with it; a wrong user
// or password is answered only after its address's delay (failed-auth.ts).
import fastifyBasicAuth from '@fastify/basic-auth';
import type { FastifyInstance } from 'fastify';
import { SecretSet } from './compare.js';
import type { BoardUser } from './credentials.js';
import type { FailedAuth } from './failed-auth.js';

class BoardAuthError extends Error {
  readonly statusCode = 401;
  override readonly name = 'Unauthorized';
}

export async function guardWithBasicAuth(scope: FastifyInstance, users: readonly BoardUser[], failures: FailedAuth): Promise<void> {
  // One set per user keeps the password check constant-time; the user
  // name is compared the same way so a wrong name costs the same.
  const entries = users.map((u) => ({ user: new SecretSet([u.user]), password: new SecretSet([u.password]) }));
  await scope.register(fastifyBasicAuth, {
    authenticate: { realm: 'pve-provisioner Bull Board' },
    validate: async (user: string, password: string, request) => {
      let ok = false;
      for (const entry of entries) {
        const userMatches = entry.user.has(user);
        const passwordMatches = entry.password.has(password);
        ok = (userMatches && passwordMatches) || ok;
      }
      if (!ok) {
        await failures.refusedRequest(request, 'board');
        return new BoardAuthError('user name or password not accepted');
      }
      return undefined;
    },
  });
  scope.addHook('onRequest', scope.basicAuth);
}
