// The OpenAPI schemas of GET /v1/images (SPEC 27), as src/web/image-list.ts answers.
import { HEALTH_REASONS } from '../job-table/health-result.schema.js';

type Schema = Record<string, unknown>;

const reasons: Schema = {
  type: 'array',
  description: 'Empty when ok; else each reason (SPEC 19) and what was found.',
  items: {
    type: 'object',
    required: ['reason', 'detail'],
    properties: {
      reason: { type: 'string', enum: [...HEALTH_REASONS] },
      detail: { type: 'string' },
    },
  },
};

export const imageSchemas: Record<string, Schema> = {
  Image: {
    type: 'object',
    required: ['name', 'default', 'nodes'],
    properties: {
      name: { type: 'string', description: "What a create's image field names." },
      description: { type: 'string' },
      default: { type: 'boolean', description: 'The image of a create that names none (proxmox.defaultImage).' },
      nodes: {
        type: 'array',
        description: 'Each configured node that serves the image, in proxmox.nodes order (with several clusters, each cluster\'s in the configured order); a create with this image is placed only on these.',
        items: {
          type: 'object',
          required: ['node', 'template'],
          properties: {
            node: { type: 'string' },
            cluster: { type: 'string', description: "The node's Proxmox cluster, with proxmox.clusters set (SPEC 32; GET /v1/clusters); absent otherwise." },
            template: {
              type: 'object',
              required: ['vmid', 'node'],
              description: 'The template cloned for this node: its VMID and the node that holds it; target when it is cloned across to this node (shared storage, SPEC 23).',
              properties: { vmid: { type: 'integer' }, node: { type: 'string' }, target: { type: 'string' } },
            },
            health: {
              type: 'object',
              required: ['ok', 'reasons', 'at'],
              description: 'What the last health job found for this image on this node; absent until one has run.',
              properties: {
                ok: { type: 'boolean' },
                reasons,
                notes: {
                  type: 'array',
                  items: { type: 'string' },
                  description: 'What an operator should know that does not make it unfit, in words (a protected template, SPEC 28); absent when none.',
                },
                at: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    },
  },
  ImageList: { type: 'object', required: ['images'], properties: { images: { type: 'array', items: { $ref: '#/components/schemas/Image' } } } },
};
