import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCliProcess } from '../support/cli-process.js';

beforeAll(requireBuild);

interface Finding {
  kind: string;
  severity: string;
  file?: string;
  line?: number;
  message: string;
  fix: string;
}

function memory(dir: string, file: string, fields: Record<string, string>, body: string) {
  const head = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  writeFileSync(join(dir, file), `---\n${head}\n---\n${body}\n`);
}

/** 3 orphans, 2 dangling lines, 1 missing description, 12 correction-only feedback, 2 relative dates. */
function sickDirectory() {
  const root = mkdtempSync(join(tmpdir(), 'engram-doctor-'));
  const dir = join(root, 'memory');
  mkdirSync(dir);
  const index: string[] = [];
  const tools = [
    'jest',
    'moment',
    'lodash',
    'request',
    'enzyme',
    'tslint',
    'bower',
    'grunt',
    'gulp',
    'karma',
    'mocha',
    'sinon',
  ];
  for (const tool of tools) {
    memory(
      dir,
      `no-${tool}.md`,
      {
        name: `no ${tool}`,
        description: `the user does not want ${tool} in this repository`,
        type: 'feedback',
      },
      `Never add ${tool}; use the built-in alternative instead.\n**Why:** the user corrected this twice.\n**How to apply:** when adding dependencies.`,
    );
    index.push(`- [no ${tool}](no-${tool}.md) — no ${tool} here`);
  }
  memory(
    dir,
    'launch.md',
    { name: 'launch', description: 'the launch plan for the beta', type: 'project' },
    'The beta launches next Thursday, after the freeze.\n**Why:** marketing needs a week.',
  );
  memory(
    dir,
    'standup.md',
    { name: 'standup', description: 'standup moved to the afternoon', type: 'user' },
    'Since yesterday the standup is at 14:00.',
  );
  index.push('- [launch](launch.md) — beta launch plan', '- [standup](standup.md) — standup time');
  memory(dir, 'nodesc.md', { name: 'no description here', type: 'user' }, 'Prefers dark mode.');
  index.push('- [no description](nodesc.md)');
  for (const name of ['orphan-a', 'orphan-b', 'orphan-c']) {
    memory(
      dir,
      `${name}.md`,
      { name, description: `${name} facts that were never indexed`, type: 'reference' },
      `See the ${name} dashboard.`,
    );
  }
  index.push(
    '- [gone one](gone-one.md) — deleted by hand',
    '- [gone two](gone-two.md) — also deleted',
  );
  writeFileSync(join(dir, 'MEMORY.md'), `${index.join('\n')}\n`);
  return { root, dir, env: cliEnv(join(root, 'home')) };
}

describe('engram doctor', () => {
  it('reports every planted problem, once per line with a fix, and both orphan counts agree', async () => {
    const { root, dir, env } = sickDirectory();
    const run = await runCliProcess(['doctor', '--dir', dir, '--json'], env, root);
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      findings: Finding[];
      summary: Record<string, Record<string, unknown>>;
    };
    expect(report.ok).toBe(false);
    const of = (kind: string) => report.findings.filter((f) => f.kind === kind);
    expect(
      of('orphan')
        .map((f) => f.file)
        .sort(),
    ).toEqual(['orphan-a.md', 'orphan-b.md', 'orphan-c.md']);
    expect(of('dangling_pointer').map((f) => [f.file, f.line])).toEqual([
      ['gone-one.md', 16],
      ['gone-two.md', 17],
    ]);
    expect(of('missing_description').map((f) => f.file)).toEqual(['nodesc.md']);
    expect(of('relative_date').map((f) => [f.file, f.line])).toEqual(
      expect.arrayContaining([
        ['launch.md', 6],
        ['standup.md', 6],
      ]),
    );
    expect(of('relative_date')).toHaveLength(2);
    const polarity = of('feedback_polarity');
    expect(polarity).toHaveLength(1);
    expect(polarity[0]!.severity).toBe('warning');
    expect(polarity[0]!.message).toMatch(/12 corrections, 0 confirmations/);
    expect(polarity[0]!.message).toMatch(/sieve, not a verdict/);
    expect(report.summary.polarity).toMatchObject({
      feedback: 12,
      correction: 12,
      confirmation: 0,
    });
    expect(report.summary.orphans).toEqual({ byIndexParser: 3, byLinkScan: 3, agree: true });
    expect(report.summary.dangling).toEqual({ byIndexParser: 2, byLinkScan: 2, agree: true });
    expect(of('orphan_count_unreliable')).toEqual([]);
    expect(report.summary.index).toMatchObject({ lines: 17, maxLines: 200, maxBytes: 25_000 });
    for (const f of report.findings) {
      expect(['error', 'warning', 'info']).toContain(f.severity);
      expect(f.message.length).toBeGreaterThan(0);
      expect(f.fix.length).toBeGreaterThan(0);
    }

    const text = await runCliProcess(['doctor', '--dir', dir], env, root);
    expect(text.code).toBe(1);
    const lines = text.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('error orphan '))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('error dangling_pointer '))).toHaveLength(2);
    expect(lines.every((l) => l.includes('Fix: ') || /^(OK|PROBLEMS):/.test(l))).toBe(true);
  });

  it('--fix takes a named backup, then indexes the orphans and drops the dangling lines', async () => {
    const { root, dir, env } = sickDirectory();
    const before = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
    const run = await runCliProcess(['doctor', '--dir', dir, '--json', '--fix'], env, root);
    const report = JSON.parse(run.stdout);
    expect(report.fixed.addedIndexLines.sort()).toEqual([
      'orphan-a.md',
      'orphan-b.md',
      'orphan-c.md',
    ]);
    expect(report.fixed.droppedIndexLines.sort()).toEqual(['gone-one.md', 'gone-two.md']);
    expect(existsSync(report.fixed.backup)).toBe(true);
    expect(readFileSync(report.fixed.backup, 'utf8')).toBe(before);
    const kinds = report.findings.map((f: Finding) => f.kind);
    expect(kinds).not.toContain('orphan');
    expect(kinds).not.toContain('dangling_pointer');
    expect(kinds).toContain('missing_description'); // not a safe repair: left for a person
    const audit = await runCliProcess(['index', '--check', '--dir', dir], env, root);
    expect(audit.code, audit.stdout).toBe(0);
  });

  it('--fix never writes its backup through a linked .engram folder, and repairs nothing then', async () => {
    const { root, dir, env } = sickDirectory();
    const before = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
    const outside = join(root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(dir, '.engram'));
    const run = await runCliProcess(['doctor', '--dir', dir, '--json', '--fix'], env, root);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/\.engram.*symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe(before);
  });

  it('says its own count is unreliable when the two methods disagree, and then fixes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-'));
    const dir = join(root, 'memory');
    mkdirSync(dir);
    memory(
      dir,
      'tea.md',
      { name: 'tea', description: 'green tea steeping time', type: 'user' },
      'Two minutes at 80 °C.',
    );
    // A pointer inside an HTML comment: the line scanner reads it, the markdown parser does not.
    const index = '<!-- - [tea](tea.md) — steeping -->\n';
    writeFileSync(join(dir, 'MEMORY.md'), index);
    const env = cliEnv(join(root, 'home'));
    const run = await runCliProcess(['doctor', '--dir', dir, '--json', '--fix'], env, root);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.summary.orphans.agree).toBe(false);
    const unreliable = report.findings.filter((f: Finding) => f.kind === 'orphan_count_unreliable');
    expect(unreliable).toHaveLength(1);
    expect(unreliable[0].message).toMatch(/unreliable/);
    expect(report.fixed.skipped).toMatch(/disagree/);
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe(index);
  });

  it('passes a healthy directory with exit 0 and lists old precise memories with what fails now', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-'));
    const project = join(root, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src/app.ts'), 'export const app = 1;\n');
    const dir = join(root, 'memory');
    mkdirSync(dir);
    memory(
      dir,
      'entry.md',
      { name: 'entry', description: 'where the app starts', type: 'reference' },
      'The app starts in `src/app.ts`.',
    );
    writeFileSync(join(dir, 'MEMORY.md'), '- [entry](entry.md) — where the app starts\n');
    const env = cliEnv(join(root, 'home'));
    const ok = await runCliProcess(['doctor', '--dir', dir, '--json'], env, project);
    expect(ok.code, ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout).summary.precise).toMatchObject({ memories: 1, failing: 0 });
    rmSync(join(project, 'src/app.ts'));
    const sick = await runCliProcess(['doctor', '--dir', dir, '--json'], env, project);
    expect(sick.code).toBe(1);
    const report = JSON.parse(sick.stdout);
    expect(report.summary.precise.list).toEqual([
      expect.objectContaining({
        file: 'entry.md',
        claims: 1,
        checked: true,
        failed: ['`src/app.ts` no longer exists'],
      }),
    ]);
    expect(report.findings.map((f: Finding) => f.kind)).toContain('claim_fails');
  });
});

describe('engram doctor and the settings it runs with', () => {
  it('names each recallDecay value it refused and kept the default for', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-settings-'));
    const dir = join(root, 'memory');
    mkdirSync(dir);
    memory(
      dir,
      'style.md',
      { name: 'style', description: 'the user wants two-space indentation', type: 'user' },
      'Indent with two spaces.',
    );
    writeFileSync(join(dir, 'MEMORY.md'), '- [style](style.md) — two-space indentation\n');
    const env = cliEnv(join(root, 'home'));
    mkdirSync(env.ENGRAM_HOME!, { recursive: true });
    writeFileSync(
      join(env.ENGRAM_HOME!, 'settings.json'),
      JSON.stringify({ recallDecay: { halfLifeDays: { user: -5 }, reference: 'often' } }),
    );
    const run = await runCliProcess(['doctor', '--dir', dir, '--json'], env, root);
    const findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
    const settings = findings.filter((f) => f.kind === 'invalid_setting');
    expect(settings.map((f) => f.message)).toEqual([
      expect.stringContaining('recallDecay.halfLifeDays.user must be a positive number'),
      expect.stringContaining('recallDecay.reference must be an object'),
    ]);
    expect(settings.every((f) => f.severity === 'warning' && /default/.test(f.message))).toBe(true);
    expect(run.code).toBe(1);
    const text = await runCliProcess(['doctor', '--dir', dir], env, root);
    expect(text.stdout).toContain('warning invalid_setting: recallDecay.halfLifeDays.user');
  });

  it('names the settings file whose recallDecay value it refused, in the warning and its fix', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-settings-'));
    const cwd = join(root, 'repo');
    mkdirSync(join(cwd, '.engram'), { recursive: true });
    const env = cliEnv(join(root, 'home'));
    mkdirSync(env.ENGRAM_HOME!, { recursive: true });
    const userSettings = join(env.ENGRAM_HOME!, 'settings.json');
    const projectSettings = join(cwd, '.engram', 'settings.json');
    // The project's value is the one recall reads when the user settings set none.
    writeFileSync(userSettings, JSON.stringify({ autoDreamEnabled: true }));
    writeFileSync(projectSettings, JSON.stringify({ recallDecay: { halfLifeDays: { user: 0 } } }));
    const findingsIn = async () => {
      const run = await runCliProcess(['doctor', '--json'], env, cwd);
      return (JSON.parse(run.stdout) as { findings: Finding[] }).findings.filter(
        (f) => f.kind === 'invalid_setting',
      );
    };
    const fromProject = await findingsIn();
    expect(fromProject).toHaveLength(1);
    expect(fromProject[0]!.message).toContain(`project settings ${projectSettings}`);
    expect(fromProject[0]!.fix).toContain(projectSettings);
    // A user setting of it replaces the project's: now that file holds the refused value.
    writeFileSync(
      userSettings,
      JSON.stringify({ recallDecay: { reference: { halfLifeDays: -1 } } }),
    );
    const fromUser = await findingsIn();
    expect(fromUser.map((f) => f.message)).toEqual([
      expect.stringContaining(`recallDecay.reference.halfLifeDays must be a positive number`),
    ]);
    expect(fromUser[0]!.message).toContain(`user settings ${userSettings}`);
    expect(fromUser[0]!.fix).toContain(userSettings);
    expect(fromUser[0]!.fix).not.toContain(projectSettings);
  });
});

describe('engram doctor over the memory layers', () => {
  it("calls a memory never recalled from its own layer's recall log, keyed by that layer's directory, and names the layer", async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-layers-'));
    const env = cliEnv(join(root, 'home'));
    const userDir = join(env.ENGRAM_HOME!, 'user', 'memory');
    const here = join(root, 'here');
    const other = join(root, 'other');
    for (const d of [userDir, here, other]) mkdirSync(d, { recursive: true });
    const ref = (dir: string, file: string, description: string) =>
      memory(dir, file, { name: file, description, type: 'reference' }, 'See the board.');
    ref(userDir, 'kafka-topics.md', 'kafka topic names and partition counts');
    ref(userDir, 'zeta-board.md', 'dashboard links for the billing service deploys');
    ref(userDir, 'latency-board.md', 'grafana board for checkout latency alerts');
    // Another repository's project memory of the user's zeta-board name.
    ref(other, 'zeta-board.md', 'grafana panels of the payments queue');
    ref(here, 'deploy-days.md', 'deploy the service only on tuesdays');
    ref(here, 'offsite-notes.md', 'notes from the team offsite in lisbon');
    writeFileSync(
      join(here, 'MEMORY.md'),
      '- [deploy](deploy-days.md) — tuesdays\n- [offsite](offsite-notes.md) — lisbon\n',
    );
    writeFileSync(join(other, 'MEMORY.md'), '- [zeta](zeta-board.md) — panels\n');
    // Recalled in the other repository: its line is in the user layer's log, not here's.
    const recalled = await runCliProcess(
      [
        'recall',
        'grafana panels of the payments queue and its kafka topic partition counts',
        '--dir',
        other,
        '--json',
      ],
      env,
      root,
    );
    expect(recalled.code, recalled.stderr).toBe(0);
    const picked = (JSON.parse(recalled.stdout) as { selected: { file: string; layer: string }[] })
      .selected;
    expect(picked.map((m) => `${m.layer}:${m.file}`).sort()).toEqual([
      'project:zeta-board.md',
      'user:kafka-topics.md',
    ]);
    const deploy = await runCliProcess(
      ['recall', 'when can we deploy the service', '--dir', here, '--json'],
      env,
      root,
    );
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(JSON.parse(deploy.stdout).selected.map((m: { file: string }) => m.file)).toEqual([
      'deploy-days.md',
    ]);
    // A line written before logs named directories counts by file name.
    const userLog = join(userDir, '.engram', 'recall-metrics.jsonl');
    const old = { at: '2026-01-01T00:00:00.000Z', selected: 1, files: ['latency-board.md'] };
    writeFileSync(userLog, `${readFileSync(userLog, 'utf8')}${JSON.stringify(old)}\n`);

    const run = await runCliProcess(['doctor', '--dir', here, '--json'], env, root);
    const report = JSON.parse(run.stdout) as {
      findings: Array<Finding & { layer?: string }>;
      summary: { recallLog: { layers: Array<{ layer: string; recalls: number }> } };
    };
    const never = report.findings.filter((f) => f.kind === 'never_recalled');
    expect(never.map((f) => [f.layer, f.file])).toEqual([
      ['project', 'offsite-notes.md'],
      ['user', 'zeta-board.md'],
    ]);
    expect(never[1]!.message).toContain(`user layer (${userDir})`);
    expect(report.summary.recallLog.layers.map((l) => [l.layer, l.recalls])).toEqual([
      ['project', 1],
      ['user', 2],
    ]);
    const text = await runCliProcess(['doctor', '--dir', here], env, root);
    expect(text.stdout).toContain('info never_recalled [user] zeta-board.md: ');
    // The project layer's findings read as before layers were named.
    expect(text.stdout).toContain('info never_recalled offsite-notes.md: offsite-notes.md was not');
  });

  it('labels the directory as the user layer when --dir names the user layer (also through a link)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-doctor-userdir-'));
    const env = cliEnv(join(root, 'home'));
    const userDir = join(env.ENGRAM_HOME!, 'user', 'memory');
    mkdirSync(join(userDir, '.engram'), { recursive: true });
    const ref = (file: string, description: string) =>
      memory(userDir, file, { name: file, description, type: 'reference' }, 'See the board.');
    ref('kafka-topics.md', 'kafka topic names and partition counts');
    ref('zeta-board.md', 'dashboard links for the billing service deploys');
    writeFileSync(
      join(userDir, 'MEMORY.md'),
      '- [kafka](kafka-topics.md) — topics\n- [zeta](zeta-board.md) — dashboards\n',
    );
    const line = { at: '2026-01-01T00:00:00.000Z', selected: 1, files: ['kafka-topics.md'] };
    writeFileSync(join(userDir, '.engram', 'recall-metrics.jsonl'), `${JSON.stringify(line)}\n`);
    const link = join(root, 'my-user-memory');
    symlinkSync(userDir, link);
    for (const dir of [userDir, link, `${userDir}/`]) {
      const run = await runCliProcess(['doctor', '--dir', dir, '--json'], env, root);
      const report = JSON.parse(run.stdout) as {
        findings: Array<Finding & { layer?: string }>;
        summary: { recallLog: { layers: Array<{ layer: string; recalls: number }> } };
      };
      const never = report.findings.filter((f) => f.kind === 'never_recalled');
      expect(
        never.map((f) => [f.layer, f.file]),
        dir,
      ).toEqual([['user', 'zeta-board.md']]);
      expect(
        report.summary.recallLog.layers.map((l) => [l.layer, l.recalls]),
        dir,
      ).toEqual([['user', 1]]);
    }
    const text = await runCliProcess(['doctor', '--dir', userDir], env, root);
    expect(text.stdout).toContain('info never_recalled [user] zeta-board.md: ');
  });
});
