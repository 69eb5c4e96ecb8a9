export { createUiApp, type UiAppOptions } from './app.js';
export {
  isLoopbackHost,
  isSameOrigin,
  newUiToken,
  UI_TOKEN_COOKIE,
  UI_TOKEN_HEADER,
} from './security.js';
export { type RunningUi, startUi } from './server.js';
