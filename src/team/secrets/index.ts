export { SECRET_RULES, type SecretRule } from './rules.js';

export { redact, type SecretFinding, scanForSecrets, shannonEntropy } from './scan.js';
