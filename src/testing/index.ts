export { type ScriptedModelOptions, scriptedModel } from './scripted-model.js';

export {
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptStep,
  startScriptedModelServer,
} from './scripted-model-server.js';
