// The OpenAPI document's building blocks, shared by its parts (openapi*.ts).
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Schema): Schema => ({ content: { 'application/json': { schema } } });
export const answer = (description: string, schema: Schema): Schema => ({ description, ...json(schema) });
