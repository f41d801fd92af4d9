// Readiness `phone-home` (SPEC 29) as the provider sees it: a token bound
// to the VM's name and uid, stored before the seed that carries it is
// built, and the signal the guest's call to /v1/ready/<token> leaves. The
// store lives outside the provider (src/queue/ready-signals.ts keeps it
// in Redis; the web process's route consumes the token).

/** What a token stands for; nothing secret. */
export interface ReadyBinding {
  name: string;
  uid: string;
  /** The desired-state generation of the create that drew it (SPEC 2); 0 when the create carried none. */
  generation: number;
}

export interface ReadySignals {
  /** Stores the token's binding for ttlSeconds; a token is good once. */
  issue(token: string, binding: ReadyBinding, ttlSeconds: number): Promise<void>;
  /** Whether the guest of this name and uid has phoned home. */
  arrived(name: string, uid: string): Promise<boolean>;
  /** Drops the signal of an earlier VM of this name and uid: a new clone is a new guest, which must phone home itself. */
  forget(name: string, uid: string): Promise<void>;
}
