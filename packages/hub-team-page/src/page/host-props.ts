/**
 * The optional host props in use: the advisor (Summarise and `/assistant`), speech, board
 * navigation, and changing them after mounting. Without a prop its control is not offered, and
 * these calls do nothing.
 */
import { advisorMessages } from '../advisor-panel.js';
import type { MessageRow } from '../hub-types.js';
import type { TeamPageUpdate } from '../props.js';
import type { PageContext } from './context.js';

export class HostProps {
  constructor(private readonly ctx: PageContext) {}

  /** Applies changed props (focus is the caller's: it needs navigation); an advisor or speech taken away stops. */
  update(patch: TeamPageUpdate): void {
    const { ctx } = this;
    const hadAdvisor = Boolean(ctx.props.advisor);
    Object.assign(ctx.props, patch);
    if (hadAdvisor && !ctx.props.advisor) ctx.views.advisorPanel.cancel();
    if (!ctx.props.on_speak_message) ctx.views.speech.stop();
    ctx.views.composer.setAssistant(Boolean(ctx.props.advisor));
    ctx.render.channel();
    ctx.render.thread();
  }

  async askAdvisor(question: string, purpose: 'assistant' | 'summary'): Promise<boolean> {
    const { ctx } = this;
    const advisor = ctx.props.advisor;
    const history = ctx.state.history;
    if (!advisor || !history) return false;
    const request = Object.freeze({ question, channel: history.channel, messages: advisorMessages(history.list()), purpose });
    return ctx.views.advisorPanel.ask(advisor, request);
  }

  speak(message: MessageRow): void {
    const { ctx } = this;
    const speak = ctx.props.on_speak_message;
    if (!speak) return;
    ctx.views.speech.toggle(speak, { id: message.id, channel: message.channel || (ctx.state.selected ?? ''), seq: message.seq, sender: message.sender, title: message.title ?? '', body: message.body ?? '' });
  }

  openBoard(workId?: string): void {
    const open = this.ctx.props.on_open_board;
    if (!open) return;
    if (workId === undefined) open();
    else open(workId);
  }
}
