/** Worker entry of `trace-workers.ts`: records one conversation. */
import { recordConversation, type RecordedConversation } from './trace.js';
import type { RecordTask } from './trace-workers.js';

export default function record(task: RecordTask): Promise<RecordedConversation> {
  return recordConversation(task.conversation, task.kind, task.topP, task.select);
}
