export {
  CliExit,
  type CommonOptions,
  configuredModel,
  environmentFor,
  memoryDirFor,
  printJson,
  runtimeFor,
  withCommonOptions,
} from './common.js';

export { type CliIo, processIo } from './io.js';

export { buildProgram, exitCodeFor, runCli } from './program.js';
