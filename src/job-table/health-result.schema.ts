// What the health job finds (SPEC 19, 27): each node's fitness and each
// image's on it. The provider's health check makes these, the worker
// keeps them for /readyz, and the HTTP API shows them (GET /v1/images and
// its OpenAPI enum of reasons). Types and constants only.

/** Every reason a health check gives (SPEC 19), also the OpenAPI enum. */
export const HEALTH_REASONS = [
  'Unreachable',
  'CertificateInvalid',
  'CredentialsUnavailable',
  'CredentialsRejected',
  'PermissionDenied',
  'NodeOffline',
  'StorageNotFound',
  'TemplateNotFound',
] as const;

export type HealthReason = (typeof HEALTH_REASONS)[number];

/** Whether one image can be placed on one node (SPEC 27): the node is fit and the image's template there is. */
export interface ImageHealth {
  image: string;
  ok: boolean;
  reasons: { reason: HealthReason; detail: string }[];
  /** What an operator should know that does not make it unfit (a protected template, SPEC 28); absent when none. */
  notes?: string[];
}

export interface NodeHealth {
  node: string;
  /** The node's cluster in the several-clusters form (SPEC 32); absent: the one-cluster form's. */
  cluster?: string;
  /** Memory the node has free (MiB) when the check read it: the door's placement among clusters (SPEC 32). */
  freeMemoryMiB?: number;
  /** Fit for every image it serves: its reasons are the node's own and every image's. */
  ok: boolean;
  reasons: { reason: HealthReason; detail: string }[];
  /** One per image the node serves; absent in results stored before images. */
  images?: ImageHealth[];
  /** Its images' notes, for a glance; absent when none. */
  notes?: string[];
}
