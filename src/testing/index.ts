export * from './scripted-model.js';
export * from './scripted-model-server.js';
