import { MemoryCounterStore, MemoryCounterStoreOptions } from '../counters/memory-counter-store';

const shared = new WeakMap<object, { store: MemoryCounterStore; users: number }>();

/**
 * The memory counters of one runtime (keyed by an object the runtime shares, its repositories),
 * so that in the embedded mode the proxy and the admin surface of `npm start` see the same
 * counts. Closed when its last user gives it back (which writes its snapshot, when it keeps one).
 */
export function acquireMemoryStore(owner: object, options: MemoryCounterStoreOptions = {}): { store: MemoryCounterStore; release: () => void } {
  let entry = shared.get(owner);
  if (!entry) {
    entry = { store: new MemoryCounterStore(options), users: 0 };
    shared.set(owner, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    store: held.store,
    release: () => {
      if (released) return;
      released = true;
      held.users--;
      if (held.users === 0) {
        shared.delete(owner);
        void held.store.close();
      }
    },
  };
}
