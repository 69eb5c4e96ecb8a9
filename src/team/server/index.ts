export { createTeamApp, type TeamAppOptions, type TeamRequestLog } from './app.js';

export { type AuthDecision, authorize, createTeamToken, hashToken, isRepoName } from './auth.js';

export { TEAM_OPENAPI } from './openapi.js';

export {
  DEFAULT_TEAM_HOST,
  DEFAULT_TEAM_PORT,
  type RunningTeamServer,
  startTeamServer,
  type TeamServerOptions,
} from './serve.js';
