import type { OperationCall } from '../dispatch/operation.js';
import type { Runtime } from '../router/runtime.js';

export function resolveInstructions(call: OperationCall): string | undefined {
  const { instructions } = call.runtime;
  if (typeof instructions !== 'function') return instructions;
  return instructions({
    protocolVersion: call.selection.dialect.version,
    clientInfo: call.selection.clientInfo,
    auth: call.auth,
  });
}

/** `server/discover` (2026-07-28): the stateless revisions, capabilities and instructions. */
export function discover(call: OperationCall): Record<string, unknown> {
  const result: Record<string, unknown> = {
    supportedVersions: [...call.runtime.modernVersions],
    capabilities: call.runtime.capabilities,
  };
  const instructions = resolveInstructions(call);
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}

/** The `initialize` result for the negotiated revision. */
export function initializeResult(call: OperationCall, runtime: Runtime): Record<string, unknown> {
  const result: Record<string, unknown> = {
    protocolVersion: call.selection.dialect.version,
    capabilities: runtime.capabilities,
    serverInfo: runtime.serverInfo,
  };
  const instructions = resolveInstructions(call);
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}
