#!/usr/bin/env node
import { processIo } from './io.js';
import { runCli } from './program.js';

runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`engram: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
