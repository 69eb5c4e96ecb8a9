/**
 * Running the path forms through one door: a door describes how it performs each operation (or
 * says that it cannot), and `attemptPathForms` tries every form with every operation it lists,
 * forms side by side (they touch different files), each form's operations in order. The same
 * action listed for two operations (one `save` for write and create) runs once per form.
 */
import { mapPool } from '../../src/util/pool.js';
import {
  type Category,
  type DoorOp,
  mayAccept,
  PATH_FORMS,
  type PathForm,
  type World,
} from './attack-corpus.js';

export interface DoorAction {
  /** Names the action; the same name under two operations runs once. */
  name: string;
  /** Only for forms that name a file that exists (rewriting in place means something there). */
  onlyExisting?: boolean;
  run(path: string, form: PathForm): Promise<{ ok: boolean; output: string }>;
}

export type DoorTable = Record<DoorOp, readonly DoorAction[] | { unsupported: string }>;

export interface DoorAttempt {
  form: string;
  op: DoorOp;
  action: string;
  ok: boolean;
  /** Accepted although the form expects a refusal for this operation. */
  wronglyAccepted: boolean;
}

/** Forms whose path names a file or folder that exists in the world. */
const EXISTING: ReadonlySet<Category> = new Set([
  'symlinked-file',
  'symlinked-folder',
  'hard-link',
  'link-then-dotdot',
  'sibling-prefix',
  'absolute',
]);

export interface DoorRun {
  attempts: DoorAttempt[];
  /** Form ids attempted at least once. */
  tried: Set<string>;
  /** Form ids none of whose operations this door has (the table says why). */
  unsupported: string[];
  /** Every output, by `form:action`, for the leak check. */
  outputs: Record<string, string>;
}

export async function attemptPathForms(
  w: World,
  table: DoorTable,
  concurrency = 4,
): Promise<DoorRun> {
  const has = (op: DoorOp) => Array.isArray(table[op]);
  const run: DoorRun = {
    attempts: [],
    tried: new Set(),
    outputs: {},
    unsupported: PATH_FORMS.filter((f) => !f.ops.some(has)).map((f) => f.id),
  };
  await mapPool(PATH_FORMS, concurrency, async (form) => {
    const path = form.path(w);
    const done = new Set<string>();
    for (const op of form.ops) {
      const actions = table[op];
      if (!Array.isArray(actions)) continue;
      for (const action of actions as readonly DoorAction[]) {
        if (done.has(action.name) || (action.onlyExisting && !EXISTING.has(form.category)))
          continue;
        done.add(action.name);
        const result = await action.run(path, form);
        run.tried.add(form.id);
        run.outputs[`${form.id}:${action.name}`] = result.output;
        run.attempts.push({
          form: form.id,
          op,
          action: action.name,
          ok: result.ok,
          wronglyAccepted: result.ok && !mayAccept(form, op),
        });
      }
    }
  });
  return run;
}

/** Form ids a door never attempted although it has one of their operations. */
export const untried = (run: DoorRun): string[] =>
  PATH_FORMS.filter((f) => !run.tried.has(f.id) && !run.unsupported.includes(f.id)).map(
    (f) => f.id,
  );
