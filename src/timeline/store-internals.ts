// The backend under a Store, for the timeline's own modules and for tests that damage or
// count stored rows on purpose. Nothing else may import this module (npm run lint says so):
// domains, operations and interfaces go through the Store and Session, which own the write
// protocol.
import type { Backend } from "../backends/backend.js";
import type { Store } from "./store.js";

const backends = new WeakMap<Store, Backend>();

/** Called by the Store's constructor. */
export function registerBackend(store: Store, backend: Backend): void {
  backends.set(store, backend);
}

/** The backend of `store`. */
export function backendOf(store: Store): Backend {
  const backend = backends.get(store);
  if (!backend) throw new Error("not a Store made by this module's Store class");
  return backend;
}
