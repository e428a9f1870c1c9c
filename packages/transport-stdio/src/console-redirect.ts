/**
 * While `serve` writes protocol messages to `process.stdout`, the global console writes what it
 * would write there to `process.stderr` instead.
 *
 * Node's console sends everything meant for stdout (`log` and its aliases `info`, `debug`,
 * `dirxml`; `dir`; and through `log`: `table`, `group` labels, `count`, `timeLog`, `timeEnd`)
 * through one stream, its `_stdout` property, and supports reassigning it on the global console
 * (Node's test/parallel/test-console-stdio-setters.js). Swapping that one stream, rather than the
 * methods, catches every such method, keeps the console's own state (group indentation, counts,
 * timers), and leaves alone any method the application replaced itself.
 *
 * Overlapping serves share one redirect: the first to start moves the console, the last to end
 * moves it back, whatever the order in which they end.
 */

/** The part of Node's `Console` this relies on. */
interface NodeConsole {
  _stdout?: unknown;
}

let holders = 0;
/** Set while redirected: the console that was moved. */
let moved: NodeConsole | undefined;

/**
 * Starts the redirect, or joins the one in place; the returned function ends this hold (once).
 * `serve` holds it while it serves on stdout; a program that will serve on stdout later (a CLI
 * that starts its backends first) holds it from its start, so start-up output goes to stderr too.
 */
export function redirectConsole(): () => void {
  if (holders++ === 0) moved = redirect(globalThis.console as NodeConsole);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders > 0 || moved === undefined) return;
    // Unless something else re-pointed it meanwhile, it goes back to stdout.
    if (moved._stdout === process.stderr) moved._stdout = process.stdout;
    moved = undefined;
  };
}

/**
 * Moves `target` to stderr when it writes to the process's stdout. A console that writes
 * elsewhere (a test runner's, an application's own, one already on stderr) is left alone.
 */
function redirect(target: NodeConsole): NodeConsole | undefined {
  if (target._stdout !== process.stdout) return undefined;
  target._stdout = process.stderr;
  return target;
}
