// Every client refuses a target that is not on the loopback interface.
export function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!/^127\.\d+\.\d+\.\d+$/.test(host)) throw new Error(`refusing non-loopback target ${url}`);
}
