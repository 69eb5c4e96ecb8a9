import { Command, CommanderError } from 'commander';
import { ENGRAM_VERSION } from '../util/version.js';
import { registerAgentCommands } from './commands/agent.js';
import { registerDemoCommands } from './commands/demo.js';
import { registerDoctorCommands } from './commands/doctor.js';
import { registerDreamCommands } from './commands/dream.js';
import { registerDriftCommands } from './commands/drift.js';
import { registerEvalCommands } from './commands/eval.js';
import { registerExtractCommands } from './commands/extract.js';
import { registerHookCommands } from './commands/hook.js';
import { registerImportCommands } from './commands/import.js';
import { registerInstructionsCommands } from './commands/instructions.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memory.js';
import { registerModelsCommands } from './commands/models.js';
import { registerRecallCommands } from './commands/recall.js';
import { registerSessionCommands } from './commands/session.js';
import { registerTeamCommands } from './commands/team.js';
import { registerUiCommands } from './commands/ui.js';
import { CliExit, withCommonOptions } from './common.js';
import { exitCodeFor } from './exit-code.js';
import type { CliIo } from './io.js';

export { exitCodeFor } from './exit-code.js';

export function buildProgram(io: CliIo): Command {
  const program = new Command('engram')
    .description('Memory for AI agents: typed markdown memories, recall, budgets, freshness.')
    .version(ENGRAM_VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  // The common options also work before the command (`engram --dir X list`): they are handed to
  // the command that runs, unless it was given its own.
  withCommonOptions(program).hook('preAction', (root, action) => {
    if (action === root) return;
    for (const [key, value] of Object.entries(root.opts())) {
      const declared = action.options.some((o) => o.attributeName() === key);
      if (declared && value !== undefined && action.getOptionValue(key) === undefined) {
        action.setOptionValue(key, value);
      }
    }
  });
  // Each layer registers its own commands here, one line each.
  registerMemoryCommands(program, io);
  registerAgentCommands(program, io);
  registerDemoCommands(program, io);
  registerExtractCommands(program, io);
  registerInstructionsCommands(program, io);
  registerMcpCommands(program, io);
  registerHookCommands(program, io);
  registerImportCommands(program, io);
  registerModelsCommands(program, io);
  registerRecallCommands(program, io);
  registerDreamCommands(program, io);
  registerSessionCommands(program, io);
  registerEvalCommands(program, io);
  registerDriftCommands(program, io);
  registerDoctorCommands(program, io);
  registerTeamCommands(program, io);
  registerUiCommands(program, io);
  return program;
}

/** Run the CLI in-process; returns the exit status instead of exiting. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with code 0; usage errors were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliExit) return error.exitCode;
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`engram: ${message}\n`);
    return exitCodeFor(error);
  }
}
