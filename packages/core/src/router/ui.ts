import type { HandlerContext } from '../dispatch/context.js';
import { definitionError } from '../errors/table.js';
import { declaresExtension } from './extension.js';
import type { ResourceDefinition } from './resource.js';

/** The MCP Apps extension (`@modelcontextprotocol/ext-apps`). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** MIME type of an MCP Apps HTML resource. */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** Older key of a tool's UI link; hosts read `_meta.ui.resourceUri` or this. */
export const UI_RESOURCE_URI_META_KEY = 'ui/resourceUri';

export interface UiCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

export interface UiPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

export interface UiResourceDefinition {
  /** A `ui://` URI. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** The page: a string, or a function of the request. */
  html: string | ((context: HandlerContext) => string | Promise<string>);
  csp?: UiCsp;
  permissions?: UiPermissions;
  /**
   * The sandbox origin the host should give the page. `'auto'` (default) computes
   * `sandboxDomain(<the URL the request arrived on>)` at request time; a string is sent as is;
   * `false` sends none. Hosts decide: Claude uses this value, others (ChatGPT) assign their own
   * domain and ignore the field.
   */
  domain?: 'auto' | string | false;
  prefersBorder?: boolean;
}

/** The UI link of a tool: hosts render `resourceUri` for the tool's results. */
export interface ToolUi {
  resourceUri: string;
  /** Who may call the tool (default both). */
  visibility?: ('model' | 'app')[];
}

/**
 * The host sandbox domain for a server endpoint: the lowercase hex SHA-256 of the URL, first 32
 * characters, then `.claudemcpcontent.com` (the Claude format; ChatGPT ignores the field).
 * `sandboxDomain('http://localhost:4000/mcp')` is `0307c5dc3988887979d60ecbb5101189.claudemcpcontent.com`.
 */
export async function sandboxDomain(serverUrl: string): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(serverUrl) as BufferSource);
  const hex = [...new Uint8Array(hash)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 32)}.claudemcpcontent.com`;
}

/**
 * Defines an MCP Apps UI resource. A client that declares the `io.modelcontextprotocol/ui`
 * extension gets `text/html;profile=mcp-app` and `_meta.ui` (csp, permissions, domain,
 * prefersBorder); any other client gets the same page as an ordinary `text/html` resource.
 */
export function uiResource(definition: UiResourceDefinition): ResourceDefinition {
  if (typeof definition?.uri !== 'string' || !definition.uri.startsWith('ui://')) {
    throw definitionError(`ui resource uri ${JSON.stringify(definition?.uri)} must start with ui://`);
  }
  const { html, csp, permissions, domain = 'auto', prefersBorder } = definition;
  if (typeof html !== 'string' && typeof html !== 'function') {
    throw definitionError(`ui resource "${definition.uri}": html must be a string or a function`);
  }
  if (domain !== 'auto' && domain !== false && (typeof domain !== 'string' || domain === '')) {
    throw definitionError(`ui resource "${definition.uri}": domain must be 'auto', false or a host name`);
  }
  const resource: ResourceDefinition = {
    uri: definition.uri,
    name: definition.name,
    mimeType: UI_MIME_TYPE,
    async read(context) {
      const text = typeof html === 'string' ? html : await html(context);
      if (!declaresExtension(context.clientCapabilities, UI_EXTENSION))
        return { text, mimeType: 'text/html' };
      const ui: Record<string, unknown> = {};
      if (csp) ui.csp = csp;
      if (permissions) ui.permissions = permissions;
      if (domain === 'auto') {
        if (context.url !== undefined) ui.domain = await sandboxDomain(context.url);
      } else if (domain !== false) ui.domain = domain;
      if (prefersBorder !== undefined) ui.prefersBorder = prefersBorder;
      return { text, mimeType: UI_MIME_TYPE, _meta: { ui } };
    },
  };
  if (definition.title !== undefined) resource.title = definition.title;
  if (definition.description !== undefined) resource.description = definition.description;
  return resource;
}

/** The `_meta` a tool with a UI link carries (both the current and the older key). */
export function toolUiMeta(ui: ToolUi): Record<string, unknown> {
  if (typeof ui?.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://')) {
    throw definitionError(`tool ui.resourceUri ${JSON.stringify(ui?.resourceUri)} must start with ui://`);
  }
  const meta: Record<string, unknown> = { resourceUri: ui.resourceUri };
  if (ui.visibility) meta.visibility = ui.visibility;
  return { ui: meta, [UI_RESOURCE_URI_META_KEY]: ui.resourceUri };
}
