/**
 * The write-gate eval: short conversations where the right extraction is known, each with a
 * scorer that reads what ended up in the memory directory. The cases are the failure modes the
 * seeds single out (000 §3.3–3.5, §12.4): snapshots saved because the user asked, facts the repo
 * already states, corrections without their reason, and confirmations that slip by unnoticed.
 * Scorers are pure functions of the resulting memories.
 */
import type { Message } from '../../llm/types.js';
import type { MemoryTypeOrUnknown } from '../../memdir/types.js';

/** One memory file as the scorer sees it after the run. */
export interface EvalMemory {
  file: string;
  type: MemoryTypeOrUnknown;
  status: 'active' | 'revoked';
  description: string;
  /** The whole file, frontmatter included. */
  text: string;
}

export interface CaseScore {
  passed: boolean;
  /** One line saying why, naming the offending file when there is one. */
  detail: string;
}

export interface ExtractEvalCase {
  id: string;
  /** What the case checks, in one line. */
  title: string;
  messages: Message[];
  score(memories: readonly EvalMemory[]): CaseScore;
}

const user = (id: string, text: string): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
});
const assistant = (id: string, text: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'text', text }],
});

const active = (memories: readonly EvalMemory[]) => memories.filter((m) => m.status === 'active');
const WHY = /\*\*Why:?\*\*/i;

const PR_NUMBERS = ['#412', '#413', '#415', '#418'];

const prListSnapshot: ExtractEvalCase = {
  id: 'pr-list-snapshot',
  title: '"remember this week\'s PR list" must not become an activity log',
  messages: [
    user(
      'u1',
      "Remember this week's PR list for me: #412 add retries to the uploader, #413 bump vitest to 4.1, #415 rename the config loader, #418 fix the flaky date test.",
    ),
    assistant('a1', 'Noted, those are the four PRs from this week.'),
  ],
  score(memories) {
    const log = active(memories).find(
      (m) => PR_NUMBERS.filter((pr) => m.text.includes(pr)).length >= 2,
    );
    return log
      ? {
          passed: false,
          detail: `${log.file} stores the PR list (an activity log that git already has)`,
        }
      : { passed: true, detail: 'no snapshot of the PR list was saved' };
  },
};

const derivableTooling: ExtractEvalCase = {
  id: 'derivable-tooling',
  title:
    '"we use bun, there\'s a bun.lockb" is derivable from the repository and must not be saved',
  messages: [
    user('u1', "We use bun here, there's a bun.lockb in the root."),
    assistant('a1', "Got it, I'll run `bun install` and `bun test` instead of npm."),
  ],
  score(memories) {
    const saved = active(memories).find((m) => /\bbun\b|bun\.lockb/i.test(m.text));
    return saved
      ? {
          passed: false,
          detail: `${saved.file} records the package manager, which the lockfile shows`,
        }
      : { passed: true, detail: 'nothing about bun was saved' };
  },
};

const correctionWithWhy: ExtractEvalCase = {
  id: 'correction-feedback',
  title:
    '"stop adding try/catch, errors are handled in middleware" becomes a feedback memory with Why',
  messages: [
    user('u1', 'Add an endpoint that returns the invoice PDF.'),
    assistant(
      'a1',
      'Done: GET /invoices/:id/pdf, wrapped in try/catch that returns a 500 on failure.',
    ),
    user('u2', 'Stop adding try/catch, errors are handled in middleware.'),
    assistant('a2', 'Understood. I removed the try/catch so errors reach the error middleware.'),
  ],
  score(memories) {
    const about = active(memories).filter((m) => /try\s*\/?\s*catch/i.test(m.text));
    if (about.length === 0) return { passed: false, detail: 'the correction was not saved' };
    const good = about.find((m) => m.type === 'feedback' && WHY.test(m.text));
    if (good) return { passed: true, detail: `${good.file} is a feedback memory with **Why:**` };
    const first = about[0]!;
    return {
      passed: false,
      detail: `${first.file} is ${first.type === 'feedback' ? 'missing **Why:**' : `typed ${first.type}, not feedback`}`,
    };
  },
};

const quietConfirmation: ExtractEvalCase = {
  id: 'quiet-confirmation',
  title: 'a plain "yes, exactly like that" after a non-obvious choice becomes a confirmation',
  messages: [
    user('u1', "Rewrite the payment module's tests, they keep breaking."),
    assistant(
      'a1',
      'I replaced the mocked repository with one integration test per flow that runs against a real Postgres started in Docker. The mocks had drifted from the schema, which is why the old tests passed while production failed.',
    ),
    user('u2', 'Yes, exactly like that.'),
    assistant('a2', 'Great, I will keep them that way.'),
  ],
  score(memories) {
    const saved = active(memories).find(
      (m) => m.type === 'feedback' && /postgres|real database|real db|mock/i.test(m.text),
    );
    if (!saved)
      return {
        passed: false,
        detail: 'the confirmed approach (real database, no mocks) was not saved',
      };
    return WHY.test(saved.text)
      ? { passed: true, detail: `${saved.file} keeps the confirmed approach with **Why:**` }
      : { passed: false, detail: `${saved.file} keeps the approach but has no **Why:**` };
  },
};

export const EXTRACT_EVAL_CASES: readonly ExtractEvalCase[] = [
  prListSnapshot,
  derivableTooling,
  correctionWithWhy,
  quietConfirmation,
];
