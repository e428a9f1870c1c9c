import churn from './churn.mjs';
import corePath from './core-path.mjs';
import decode from './decode.mjs';
import httpEcho from './http-echo.mjs';
import httpLarge from './http-large.mjs';
import proxy from './proxy.mjs';
import stdio from './stdio.mjs';
import subscriptions from './subscriptions.mjs';

/** Every scenario, in the order the issue lists them. */
export const SCENARIOS = [httpEcho, httpLarge, stdio, churn, subscriptions, proxy, decode, corePath];
