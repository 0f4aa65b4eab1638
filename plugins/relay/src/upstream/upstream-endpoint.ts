/**
 * Where one account's calls go: its `/v1` root, its key and its keep-alive agent (one per account,
 * so sockets are reused across calls). The account pool hands these out (`pool.upstreamOf`).
 */
import type { Agent } from 'node:http';
import type { UpstreamAccount } from '../contracts.js';

export interface UpstreamEndpoint {
  baseUrl: string;
  apiKey: string;
  agent: Agent;
}

/** What the hosted lane asks for an account's endpoint (the pool implements it). */
export interface EndpointSource {
  upstreamOf(account: UpstreamAccount): UpstreamEndpoint;
}
