/**
 * `discovery.capabilities` (issue 15): other plugins add their own blocks to
 * `GET /api/gateway/discovery/capabilities` (the runs' command types, the automations' command
 * types: reference gateway-surfaces §3.7), read at each request so a block is never stale.
 */
import { token } from '@keel/plugin-sdk';

/** Adds or extends blocks of the capabilities answer (called in the order the plugins were set up). */
export type CapabilityContributor = (capabilities: Record<string, unknown>) => void;

export interface DiscoveryCapabilities {
  contribute(contributor: CapabilityContributor): void;
}

export const discoveryCapabilitiesToken = token<DiscoveryCapabilities>('discovery.capabilities');

export class CapabilityBlocks implements DiscoveryCapabilities {
  private readonly contributors: CapabilityContributor[] = [];

  contribute(contributor: CapabilityContributor): void {
    this.contributors.push(contributor);
  }

  /** The answer with every contributed block; a contributor never replaces the inference plugin's own keys. */
  apply(base: Record<string, unknown>): Record<string, unknown> {
    const own = new Set(Object.keys(base));
    const extra: Record<string, unknown> = {};
    for (const contribute of this.contributors) contribute(extra);
    for (const [key, value] of Object.entries(extra)) if (!own.has(key)) base[key] = value;
    return base;
  }
}
