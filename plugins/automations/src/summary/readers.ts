/**
 * The summary's readers over what the engine stores (its occurrence log), what the runs plugin
 * knows of a running occurrence (its open person-wait) and the trigger sources' wording.
 */
import type { Clock } from '@keel/plugin-sdk';
import type { RunLauncher } from '@keel/plugin-gateway-runs';
import type { OccurrenceLog } from '../engine/occurrence-log.js';
import type { AttentionRecord, AutomationRecord } from '../model.js';
import { scheduleBlock } from '../triggers/schedule-wording.js';
import type { AttentionBlock, AttentionWait, SummaryReaders } from './summary.js';

/** Unseen items and waits a summary carries at most (reference §3.8). */
const SUMMARY_ITEMS = 20;

/** An attention item as routes show it: null fields left out, with its cursor. */
export function attentionItem(item: AttentionRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: item.kind, automation_id: item.automation_id, run_id: item.run_id, index: item.index, at: item.at, title: item.title };
  if (item.body !== null) out.body = item.body;
  out.cursor = `att1:${item.seq}`;
  return out;
}

export function summaryReaders(deps: { log: OccurrenceLog; launcher: RunLauncher; clock: Clock; ownerZone(account: string): string }): SummaryReaders {
  return {
    occurrences: { latest: (automationId) => deps.log.lastRun(automationId) },
    attention: {
      block(record: AutomationRecord, viewer: string): AttentionBlock {
        const seen = deps.log.seenSeq(viewer, record.automation_id);
        const items: Record<string, unknown>[] = [];
        for (const item of deps.log.attentionAfter(record.automation_id, seen)) {
          if (items.length >= SUMMARY_ITEMS) break;
          items.push(attentionItem(item));
        }
        const waits = openWaits(record, deps.launcher);
        const unseen = Math.max(record.attention_seq - seen, items.length, 0);
        return { pending_waits: waits.length, unread: unseen > 0, unseen_count: unseen, cursor: `att1:${record.attention_seq}`, items, waits };
      },
    },
    schedule: {
      wording: (record, nextFireAt) => scheduleBlock(record.definition.trigger, deps.ownerZone(record.account), nextFireAt, deps.clock.nowMs()),
    },
  };
}

/** The running occurrence's open person-wait (ask_user, tool approval, event), read from the runs plugin. */
function openWaits(record: AutomationRecord, launcher: RunLauncher): AttentionWait[] {
  const current = record.current;
  if (!current || current.status !== 'running') return [];
  const wait = launcher.outcome(current.run_id)?.wait;
  if (!wait) return [];
  return [{ run_id: wait.run_id, wait_key: wait.wait_key, kind: wait.kind, reason: wait.reason, index: current.index, prompt: wait.prompt, choices: wait.choices }];
}
