// Seed records (SPEC 5, 26): every seed a create uploads is recorded
// before the upload is sent, and forgotten once the seed is deleted, so a
// steady sweep judges seeds from the records instead of listing every
// node's seed storage. An intent written before the upload means a crash
// can leave a record without a seed (harmless: its delete is a no-op,
// F13), never a seed without a record. The store lives outside the
// provider (src/queue/seed-records.ts keeps it in Redis).

export interface SeedRecord {
  node: string;
  storage: string;
  volid: string;
  /** The VM name the seed is for (`<name>-seed.iso`). */
  name: string;
  /** The create's uid and the VMID it uploaded the seed for. */
  uid: string;
  vmid: number;
  /** RFC 3339; when the upload was about to be sent. */
  at: string;
}

export interface SeedRecords {
  /** Written before the upload is sent (an intent); a repeat overwrites it. */
  intend(record: SeedRecord): Promise<void>;
  /** After the seed's delete ended; forgetting an unknown seed is a no-op. */
  forget(node: string, volid: string): Promise<void>;
  list(): Promise<SeedRecord[]>;
}
