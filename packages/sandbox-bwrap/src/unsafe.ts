// The `@wfbench/sandbox-bwrap/unsafe` entry: the backend with NO isolation lives behind its own subpath so that using
// it is a deliberate, greppable import, never something picked up from the main barrel.
export { UNSAFE_NO_BWRAP, createHostUnsafeBackend } from "./host-unsafe-backend.js";
export type { HostUnsafeBackend, HostUnsafeBackendOptions } from "./host-unsafe-backend.js";
export { UnsafeBackendRefusedError } from "./errors.js";
