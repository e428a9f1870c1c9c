// Starting snodo-proxy in front of a backend for the proxy scenario.
import { Unavailable } from './child.mjs';

export async function startProxy() {
  throw new Unavailable('snodo-proxy: the command line is not written yet');
}
