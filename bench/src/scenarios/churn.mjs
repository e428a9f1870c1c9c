// 4. Session churn: initialize-based sessions opened and abandoned (never DELETEd), then the
// server's memory after a forced GC against before. Sessions are opened in batches so that a
// server whose RSS passes RSS_CAP is stopped there (and reported at the count it reached) rather
// than taking the machine down.
//
// "Before" is taken after a warm-up of the same traffic, initialize requests in batches until V8's
// young generation has reached its maximum (NEW_SPACE_FULL) or WARMUP_MAX sessions: under load V8
// grows it from ~1 MB to 32 MB (two 16 MB semi-spaces) and a forced GC does not give that back,
// so measured from a cold start that one-time growth would count as session memory. The growth
// from the cold start is reported too (rssFromColdMb).
import { startServer } from '../lib/child.mjs';
import { initialize } from '../lib/requests.mjs';
import { serverSpec } from '../lib/servers.mjs';

const RSS_CAP = 2 * 2 ** 30;
const MB = 2 ** 20;
const NEW_SPACE_FULL = 30 * MB;
const WARMUP_BATCH = 500;
const WARMUP_MAX = 15_000;

const ROWS = [
  { id: 'snodo', label: 'Snodo listener, 2025-06-18 sessions', role: 'ours', server: 'snodo' },
  {
    id: 'sdk-v2',
    label: 'SDK 2.x NodeStreamableHTTPServerTransport, stateful',
    role: 'peer',
    short: 'SDK 2.x',
    server: 'v2-stateful',
  },
  {
    id: 'sdk-v1',
    label: 'SDK 1.x StreamableHTTPServerTransport, stateful',
    role: 'peer',
    short: 'SDK 1.x',
    server: 'v1-stateful',
  },
];

export default {
  id: 'churn',
  title: 'Session churn: sessions opened and abandoned',
  budgetMs: 170_000,
  params: (quick) => ({
    sessions: quick ? 60 : 20_000,
    batch: quick ? 30 : 2_500,
    warmupMax: quick ? 10 : WARMUP_MAX,
    connections: quick ? 2 : 32,
  }),
  // One round: the 1.x peer alone takes about a minute for 20,000 sessions on 2 cores.
  maxRounds: () => 1,
  metrics: [
    { key: 'rssGrowthMb', label: 'RSS growth MB (after GC)', better: 'lower', digits: 1 },
    { key: 'rssFromColdMb', label: 'RSS growth from cold start MB', better: 'lower', digits: 1 },
    { key: 'heapGrowthMb', label: 'heap used growth MB', better: 'lower', digits: 1 },
    { key: 'sessionsPerSecond', label: 'initialize/s', better: 'higher', digits: 0 },
  ],
  primary: 'rssGrowthMb',
  compare: false,
  rows: () => ROWS,
  async run(row, ctx) {
    const { sessions, batch, warmupMax, connections } = ctx.params;
    const child = await startServer(serverSpec(row.server, ctx.root));
    try {
      const request = initialize();
      const prepared = await ctx.load.call(
        { type: 'prepare', url: child.url, request, expect: { contains: '"protocolVersion"' } },
        30_000,
      );
      const job = { type: 'run', url: child.url, headers: prepared.headers, body: request.body, connections };
      const cold = await child.report({ gc: true });
      let warmed = 0;
      let newSpace = cold.spaces?.new_space ?? 0;
      while (warmed < warmupMax && newSpace < NEW_SPACE_FULL) {
        const amount = Math.min(WARMUP_BATCH, warmupMax - warmed);
        warmed += (
          await ctx.load.call({ ...job, amount, connections: Math.min(connections, amount) }, 120_000)
        ).ok;
        newSpace = (await child.report()).spaces?.new_space ?? NEW_SPACE_FULL;
      }
      const before = await child.report({ gc: true });
      let opened = 0;
      let failures = 0;
      let elapsed = 0;
      // Bounded by memory (RSS_CAP) and by the scenario's time budget: a server cut short is
      // reported with the count it reached (`capped`).
      while (opened < sessions && child.memory().rss < RSS_CAP && Date.now() < ctx.deadline) {
        const amount = Math.min(batch, sessions - opened);
        const t0 = performance.now();
        const run = await ctx.load.call({ ...job, amount }, 300_000);
        elapsed += performance.now() - t0;
        opened += run.ok;
        failures += run.non2xx + run.errors + run.timeouts;
        if (run.ok === 0) throw new Error(`no session opened in a batch of ${amount}`);
      }
      const after = await child.report({ gc: true });
      return {
        sessions: opened,
        warmupSessions: warmed,
        capped: opened < sessions,
        rssColdMb: cold.rss / MB,
        rssFromColdMb: (after.rss - cold.rss) / MB,
        newSpaceMb: [cold, before, after].map((m) => (m.spaces?.new_space ?? 0) / MB),
        rssBeforeMb: before.rss / MB,
        rssAfterMb: after.rss / MB,
        rssGrowthMb: (after.rss - before.rss) / MB,
        heapGrowthMb: (after.heapUsed - before.heapUsed) / MB,
        sessionsPerSecond: (opened * 1000) / elapsed,
        failures,
      };
    } finally {
      await child.kill();
    }
  },
};
