import { describe, expect, it } from 'vitest';
import { duration, isRunsPage, logText, parseRunLog, parseRuns, pickRun, runLine, runStatus, shellLine, type Run } from '../src/runsmodel';

const run = (over: Partial<Run>): Run => ({
  id: 'r1',
  target: 'util:lint',
  status: 'succeeded',
  exitCode: 0,
  start: null,
  end: null,
  cacheHit: false,
  trigger: 'cli',
  from: 'built',
  shard: '',
  ...over,
});

describe('parseRuns', () => {
  it('reads ListRuns, skipping entries without an id', () => {
    const runs = parseRuns({
      runs: [
        { id: 'r2', target: 'util:test', status: 'failed', exitCode: 1, startTime: '2026-11-24T12:00:00Z', endTime: '2026-11-24T12:00:02.5Z', trigger: 'cli', from: 'built' },
        { target: 'no id' },
        3,
      ],
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: 'r2', target: 'util:test', status: 'failed', exitCode: 1, cacheHit: false, trigger: 'cli', from: 'built' });
    expect(runs[0]?.end?.toISOString()).toBe('2026-11-24T12:00:02.500Z');
  });
  it('reads the CI shard that ran a run, and a list line names it', () => {
    const runs = parseRuns({ runs: [{ id: 'r3', target: 'svc:test', status: 'succeeded', shard: '2/4' }, { id: 'r4', target: 'svc:lint', status: 'succeeded' }] });
    expect(runs.map((r) => r.shard)).toEqual(['2/4', '']);
    expect(runLine(runs[0]!)).toBe('svc:test succeeded · shard 2/4');
    expect(runLine(runs[1]!)).toBe('svc:lint succeeded');
  });
  it('reads nothing from an answer without runs', () => {
    expect(parseRuns({})).toEqual([]);
    expect(parseRuns(null)).toEqual([]);
  });
});

describe('parseRunLog', () => {
  it('reads GetRun: the command, the output, the directory and the run', () => {
    const l = parseRunLog({ run: { id: 'r1', target: 'util:lint', status: 'failed', exitCode: 3 }, argv: ['go', 'vet', './...', 7], output: 'boom\n', outputTruncated: true, dir: 'libs/util' });
    expect(l).toMatchObject({ argv: ['go', 'vet', './...'], output: 'boom\n', truncated: true, dir: 'libs/util' });
    expect(l.run).toMatchObject({ id: 'r1', status: 'failed', exitCode: 3 });
  });
  it('reads an empty answer as an empty log', () => {
    expect(parseRunLog(undefined)).toEqual({ run: null, argv: [], output: '', truncated: false, dir: '' });
  });
});

describe('how a run reads', () => {
  it('names the target, the status, a failure exit and the cache', () => {
    expect(runLine(run({ status: 'failed', exitCode: 3 }))).toBe('util:lint failed (exit 3)');
    expect(runLine(run({ cacheHit: true }))).toBe('util:lint succeeded (cached)');
    expect(runLine(run({ status: 'interrupted' }))).toBe('util:lint interrupted');
    expect(runStatus(run({ status: 'failed', exitCode: 1 }))).toBe('failed (exit 1)');
  });
  it('shows the log as a terminal would, saying when the output was cut', () => {
    expect(logText({ run: null, argv: ['go', 'vet', './...'], output: 'ok\n', truncated: false, dir: '' })).toBe('$ go vet ./...\nok\n');
    expect(logText({ run: null, argv: ['sh'], output: 'x', truncated: true, dir: '' })).toBe('$ sh\nx\n[output cut]');
  });
  it('quotes the words of a command that a shell would split', () => {
    expect(shellLine(['sh', '-c', 'echo hi; exit 3'])).toBe(`sh -c 'echo hi; exit 3'`);
    expect(shellLine(['echo', "it's", ''])).toBe(`echo 'it'\\''s' ''`);
    expect(shellLine(['go', 'test', '-run=TestX', './...'])).toBe('go test -run=TestX ./...');
  });
  it('says how long it took once it ended', () => {
    const start = new Date('2026-11-24T12:00:00Z');
    expect(duration(run({ start, end: new Date('2026-11-24T12:00:00.850Z') }))).toBe('850 ms');
    expect(duration(run({ start, end: new Date('2026-11-24T12:00:12.34Z') }))).toBe('12.3 s');
    expect(duration(run({ start, end: new Date('2026-11-24T12:02:05Z') }))).toBe('2 min 5 s');
    expect(duration(run({ start }))).toBe('');
  });
});

describe('pickRun', () => {
  const runs = [run({ id: 'r9' }), run({ id: 'r8' })];
  it('shows the run the link names, listed or not', () => {
    expect(pickRun(runs, 'r8')).toBe('r8');
    expect(pickRun(runs, 'r1')).toBe('r1');
  });
  it('else the newest, else none', () => {
    expect(pickRun(runs, '')).toBe('r9');
    expect(pickRun([], '')).toBe('');
  });
});

describe('isRunsPage', () => {
  it('knows the run viewer by its path', () => {
    expect(isRunsPage('/console/runs/')).toBe(true);
    expect(isRunsPage('/console/runs/index.html')).toBe(true);
    expect(isRunsPage('/console/graph/')).toBe(false);
    expect(isRunsPage('/')).toBe(false);
    expect(isRunsPage('/console/runs/x/')).toBe(false);
  });
});
