/**
 * The actions Salesforce holds under users' emails: where a users.update finds the actions it
 * must re-sync when the receiver's owners table has none for the user (they were written by a
 * sync, or before the table was kept). An action's Email__c is its owner's email (SPEC 2.6), so
 * one read of the user and one query find them. A user whose email changed with this update is
 * not found under the new one; the action's own next change then reads the user, since its
 * record no longer names the same owner (DesiredState's ownerFromMirror).
 */
import { truncate } from '../../mapping/convert.js';
import { SCHEMA } from '../../mapping/schema.js';
import { isFatal } from '../../model/errors.js';
import { KEY_FIELD, refOfKey } from '../../model/refs.js';
import type { OwnedActions } from '../../model/outcomes.js';
import type { CrmSink, RecordSource } from '../../model/ports.js';
import { ownerLinkFields } from './ownerFields.js';

export async function actionsByOwnerEmail(source: Pick<RecordSource, 'fetch'>, sink: Pick<CrmSink, 'readWhere'>, userIds: readonly number[]): Promise<OwnedActions> {
  const out: OwnedActions = new Map();
  if (userIds.length === 0) return out;
  const schema = SCHEMA.action;
  const link = ownerLinkFields(schema).find((f) => f.source === 'record.owner.email');
  const res = await source.fetch('user', [...userIds]);
  for (const [id, err] of res.failed) {
    if (isFatal(err)) throw err;
    out.set(id, { error: `user ${id} could not be read: ${err.message}` });
  }
  // Salesforce compares text ignoring case, so the emails are matched that way here too.
  const usersByEmail = new Map<string, number[]>();
  for (const id of userIds) {
    if (out.has(id)) continue;
    out.set(id, { actions: [] });
    const email = res.records.get(id)?.email;
    if (link === undefined || link.type.kind !== 'text' || typeof email !== 'string' || email.trim() === '') continue;
    const stored = truncate(email, link.type.length).toLowerCase();
    usersByEmail.set(stored, [...(usersByEmail.get(stored) ?? []), id]);
  }
  if (link === undefined || usersByEmail.size === 0) return out;
  const rows = await sink.readWhere(schema.apiName, link.name, [...usersByEmail.keys()], [link.name]);
  for (const row of rows) {
    const ref = refOfKey(String(row[KEY_FIELD]));
    const email = row[link.name];
    if (ref?.type !== 'action' || typeof email !== 'string') continue;
    for (const userId of usersByEmail.get(email.toLowerCase()) ?? []) {
      const found = out.get(userId);
      if (found !== undefined && 'actions' in found && !found.actions.includes(ref.id)) found.actions.push(ref.id);
    }
  }
  return out;
}
