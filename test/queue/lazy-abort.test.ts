// SPEC 3, 21: a job's signal is made only when asked for, and tells of an
// abort (cancel, lost lock) whether it was asked for before or after.
import { expect } from 'chai';
import { LazyAbortController } from '../../src/queue/lazy-abort.js';

describe('LazyAbortController', () => {
  it('gives a signal that a later abort aborts, with its reason', () => {
    const aborter = new LazyAbortController();
    const signal = aborter.signal;
    let heard: unknown;
    signal.addEventListener('abort', () => {
      heard = signal.reason as unknown;
    });
    expect(signal.aborted).to.equal(false);
    const reason = new Error('lost the lock of a');
    aborter.abort(reason);
    expect(signal.aborted).to.equal(true);
    expect(heard).to.equal(reason);
  });

  it('gives a signal already aborted, with the reason, when asked for after the abort', () => {
    const aborter = new LazyAbortController();
    const reason = new Error('worker shutting down');
    aborter.abort(reason);
    expect(aborter.signal.aborted).to.equal(true);
    expect(aborter.signal.reason).to.equal(reason);
  });

  it('keeps the first reason when aborted twice', () => {
    const aborter = new LazyAbortController();
    const first = new Error('first');
    aborter.abort(first);
    aborter.abort(new Error('second'));
    expect(aborter.signal.reason).to.equal(first);
  });

  it('throwIfAborted throws the reason once aborted, and nothing before', () => {
    const aborter = new LazyAbortController();
    expect(() => aborter.throwIfAborted()).not.to.throw();
    const reason = new Error('cancelled');
    aborter.abort(reason);
    expect(() => aborter.throwIfAborted()).to.throw(reason);
  });
});
