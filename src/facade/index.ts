export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  type Memory,
  type MemoryEvent,
  type OpenMemoryOptions,
  openMemory,
} from './open-memory.js';
