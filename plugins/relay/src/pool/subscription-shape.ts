/**
 * The normalised `subscription_status` of one account's usage report (reference §1.5): empty
 * strings and wrong types become null, slot names are kept, and only reported windows appear
 * (a window is never synthesised, reference §8 item 13).
 */
import { numberOrNull, windowsOf, windowStatus, type WindowStatus } from './windows.js';

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function flag(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

export interface RateLimitStatus {
  allowed: boolean | null;
  limit_reached: boolean | null;
  primary_window: WindowStatus | null;
  secondary_window: WindowStatus | null;
}

/** The RATE_LIMIT object of one upstream `rate_limit`, or null when absent. */
export function rateLimitStatus(value: unknown): RateLimitStatus | null {
  const limit = record(value);
  if (!limit) return null;
  const windows = windowsOf(limit);
  const slot = (name: 'primary_window' | 'secondary_window') => {
    const window = windows.find((w) => w.slot === name);
    return window ? windowStatus(window) : null;
  };
  return { allowed: flag(limit.allowed), limit_reached: flag(limit.limit_reached), primary_window: slot('primary_window'), secondary_window: slot('secondary_window') };
}

export interface AccountIdentity {
  slug: string;
  email: string | null;
  planType: string | null;
  usagePath: string;
}

/** The single-account `subscription_status` object. */
export function subscriptionStatus(report: Record<string, unknown>, identity: AccountIdentity, capturedAtMs: number, raw: boolean): Record<string, unknown> {
  const additional = Array.isArray(report.additional_rate_limits) ? report.additional_rate_limits : [];
  return {
    object: 'subscription_status',
    provider: 'hosted',
    captured_at: new Date(capturedAtMs).toISOString(),
    source: { kind: 'upstream_usage_report', upstream_path: identity.usagePath },
    account: {
      slug: identity.slug,
      user_id: text(report.user_id),
      account_id: text(report.account_id),
      email: text(report.email) ?? identity.email,
      plan_type: text(report.plan_type) ?? identity.planType,
    },
    rate_limits: {
      default: rateLimitStatus(report.rate_limit),
      code_review: rateLimitStatus(report.code_review_rate_limit),
      additional: additional.flatMap((entry) => {
        const item = record(entry);
        const rateLimit = rateLimitStatus(item?.rate_limit);
        return item && rateLimit ? [{ limit_name: text(item.limit_name), metered_feature: text(item.metered_feature), rate_limit: rateLimit }] : [];
      }),
    },
    credits: creditsOf(report.credits),
    spend_control: record(report.spend_control),
    rate_limit_reached_type: text(report.rate_limit_reached_type),
    rate_limit_reset_credits: record(report.rate_limit_reset_credits),
    ...(raw ? { raw: report } : {}),
  };
}

function creditsOf(value: unknown): Record<string, unknown> | null {
  const credits = record(value);
  if (!credits) return null;
  return {
    has_credits: flag(credits.has_credits),
    unlimited: flag(credits.unlimited),
    overage_limit_reached: flag(credits.overage_limit_reached),
    balance: text(credits.balance) ?? numberOrNull(credits.balance),
    approx_local_messages: Array.isArray(credits.approx_local_messages) ? credits.approx_local_messages : null,
    approx_cloud_messages: Array.isArray(credits.approx_cloud_messages) ? credits.approx_cloud_messages : null,
  };
}
