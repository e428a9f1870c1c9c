import type { AuthInfo } from '../dispatch/context.js';
import type { Selection } from '../dispatch/select.js';
import { declaresExtension, type ExtensionListenFeed } from '../router/extension.js';
import type { Runtime } from '../router/runtime.js';

/**
 * The extensions' parts of one `subscriptions/listen` (e.g. the Tasks extension's `taskIds`): each
 * extension with a `listen` hook is asked in turn. If one refuses (throws), the feeds already
 * opened are dropped and the error propagates.
 */
export async function openExtensionFeeds(
  runtime: Runtime,
  filter: Readonly<Record<string, unknown>>,
  selection: Selection,
  auth: AuthInfo | undefined,
): Promise<ExtensionListenFeed[]> {
  const feeds: ExtensionListenFeed[] = [];
  try {
    for (const extension of runtime.extensions.values()) {
      if (!extension.listen) continue;
      const declared = declaresExtension(selection.clientCapabilities, extension.id);
      const feed = await extension.listen({ filter, declared, auth });
      if (feed) feeds.push(feed);
    }
  } catch (error) {
    for (const feed of feeds) feed.cancel();
    throw error;
  }
  return feeds;
}
