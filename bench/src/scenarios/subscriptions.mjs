// 5. Subscriptions: many concurrent 2026-07-28 `subscriptions/listen` SSE streams held open, then
// one resource update (the demo server's `touch` tool) delivered to all of them: server memory per
// open stream, and fan-out time from sending the touch call until every client saw the update.
//
// Per-stream memory is (RSS with the streams open − RSS before), both after a forced GC, over the
// stream count. Before is measured after one warm-up cycle (the same streams opened and closed)
// so that what a first burst costs once (V8's young generation growing, code compiled, socket
// pools) is not counted per stream; the first burst's own figure is reported beside it, and the
// heap growth (what the streams retain in JS objects) too.
import { startServer, Worker } from '../lib/child.mjs';
import { serverSpec } from '../lib/servers.mjs';

const SUBSCRIBER = new URL('../clients/subscribe.mjs', import.meta.url);
const URI = 'demo://greeting';
const KB = 1024;

const ROWS = [
  { id: 'snodo', label: 'Snodo listener, 2026-07-28 subscriptions/listen', role: 'ours', server: 'snodo' },
  {
    id: 'bare',
    label: 'bare node:http holding SSE responses (floor)',
    role: 'ceiling',
    short: 'bare',
    server: 'bare-sse',
  },
];

export default {
  id: 'subscriptions',
  title: 'Subscriptions: open streams, one update to all',
  budgetMs: 45_000,
  params: (quick) => ({ streams: quick ? 10 : 1_000 }),
  metrics: [
    { key: 'rssPerStreamKb', label: 'server RSS KB/stream', better: 'lower', digits: 1 },
    { key: 'rssPerStreamColdKb', label: 'RSS KB/stream, first burst', better: 'lower', digits: 1 },
    { key: 'heapPerStreamKb', label: 'server heap KB/stream', better: 'lower', digits: 1 },
    { key: 'fanoutMs', label: 'fan-out ms (touch → last client)', better: 'lower', digits: 1 },
  ],
  primary: 'fanoutMs',
  rows: () => ROWS,
  async run(row, ctx) {
    const { streams } = ctx.params;
    const args =
      row.server === 'snodo'
        ? ['--max-subscriptions', String(streams + 64), '--max-connections', String(streams + 64)]
        : [];
    const child = await startServer({ ...serverSpec(row.server, ctx.root), args });
    const subscriber = new Worker(SUBSCRIBER);
    try {
      const job = { url: child.url, streams, uri: URI };
      const cold = await child.report({ gc: true });
      await subscriber.call({ type: 'open', ...job }, 120_000);
      const coldOpen = await child.report({ gc: true });
      await subscriber.call({ type: 'touch', ...job }, 120_000);
      await subscriber.call({ type: 'close' }, 30_000);
      await settle(child);
      const before = await child.report({ gc: true });
      const opened = await subscriber.call({ type: 'open', ...job }, 120_000);
      const after = await child.report({ gc: true });
      const fanout = await subscriber.call({ type: 'touch', ...job }, 120_000);
      return {
        streams: opened.opened,
        rssPerStreamKb: (after.rss - before.rss) / streams / KB,
        rssPerStreamColdKb: (coldOpen.rss - cold.rss) / streams / KB,
        heapPerStreamKb: (after.heapUsed - before.heapUsed) / streams / KB,
        rssBeforeMb: before.rss / 2 ** 20,
        rssWithStreamsMb: after.rss / 2 ** 20,
        fanoutMs: fanout.fanoutMs,
        fanoutMedianMs: fanout.medianMs,
        touchAnsweredMs: fanout.touchAnsweredMs,
        openMs: opened.openMs,
      };
    } finally {
      await subscriber.close();
      await child.kill();
    }
  },
};

/** Waits until the server has seen every warm-up connection close (its stats drop to idle). */
async function settle(child) {
  for (let i = 0; i < 50; i++) {
    const a = child.memory()?.rss;
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (a === child.memory()?.rss) return;
  }
}
