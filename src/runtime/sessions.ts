import type { EngramEnvironment } from '../config/index.js';
import {
  claudeCodeTranscriptDir,
  combineSessionListers,
  type SessionLister,
  sessionFolderLister,
  transcriptDirectoryLister,
} from '../dream/sessions.js';
import { sessionMemoryRoot } from '../session/session-store.js';

/**
 * What counts as a session of this project for consolidation, in one definition for every door:
 * Claude Code's transcripts of the project (it keeps one folder per launch directory, so both the
 * project root and cwd are tried, plus any folder a host names, such as a hook's transcript
 * folder), and engram's own session records that name this project. A session seen twice counts
 * once. The folders are found on first use, so building the lister costs nothing.
 */
export function projectSessionLister(
  environment: EngramEnvironment,
  projectRoot: string,
  transcriptDirs: readonly string[] = [],
): SessionLister {
  let combined: Promise<SessionLister> | undefined;
  const build = async (): Promise<SessionLister> => {
    const dirs = new Set<string>(transcriptDirs);
    for (const where of new Set([projectRoot, environment.cwd])) {
      const dir = await claudeCodeTranscriptDir(where, environment.env, environment.homedir);
      if (dir) dirs.add(dir);
    }
    return combineSessionListers(
      ...[...dirs].map((d) => transcriptDirectoryLister(d)),
      sessionFolderLister(sessionMemoryRoot(environment), { projectRoot }),
    );
  };
  return {
    async listSessionsTouchedSince(sinceMs) {
      combined ??= build();
      return (await combined).listSessionsTouchedSince(sinceMs);
    },
  };
}
