// One request and its answer as the client saw them (SPEC 33): what
// `verify --record` writes as a fixture. Never a header (the token is one),
// never an upload's body (the seed holds user-data): an upload is named by
// its file name and size only.
export interface Exchange {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under /api2/json, placeholders filled (`/nodes/pve1/qemu/9001/config`). */
  path: string;
  /** The query string's parameters (GET, DELETE). */
  query?: Record<string, string | number>;
  /** The form body's parameters (POST, PUT). */
  form?: Record<string, string | number>;
  /** An upload: the file's name and byte size, never its content. */
  upload?: { filename: string; size: number };
  /** 0 when no answer came (a dropped connection, a timeout). */
  status: number;
  reason: string;
  /** The answer's headers as received, lower-case names. */
  headers: Record<string, string>;
  /** The raw body text. */
  body: string;
  /** When the request left (epoch ms) and how long until its answer ended. */
  startedAt: number;
  ms: number;
}

export type ExchangeListener = (exchange: Exchange) => void;
