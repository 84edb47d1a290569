/**
 * The SVC_NPSP_* settings (PROJECTION.md §2.2, §2.3, P2, P6, P8-P10): the refund mode, the stage
 * names, the fundraiser's role and the two record types, validated at load with one line each so
 * a wrong name is said before a run reads or writes anything.
 */
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';
import { DEFAULT_NPSP_SETTINGS, type NpspRefundSetting, type NpspSettings } from './settings.js';
import type { SettingName } from './settingsTable.js';
import type { RawSettings } from './values.js';

const MODES: readonly NpspRefundSetting[] = ['auto', 'stage', 'payments'];

/** A picklist value (stage, role) as Salesforce stores it: 1 to 255 characters, no control character. */
function picklistValue(raw: RawSettings, name: SettingName, def: string): string {
  const v = raw[name];
  if (v === undefined) return def;
  const t = v.trim();
  if (t === '' || t.length > 255 || /[\u0000-\u001f\u007f]/.test(t)) throw new ConfigError(`${name} ${echo(v, 40)}: must be a picklist value of 1 to 255 characters, such as ${def}`);
  return t;
}

/** A record type's DeveloperName (letters, digits, underscores, starting with a letter). */
function developerName(raw: RawSettings, name: SettingName, def: string): string {
  const v = raw[name];
  if (v === undefined) return def;
  const t = v.trim();
  if (!/^[A-Za-z][A-Za-z0-9_]{0,79}$/.test(t)) throw new ConfigError(`${name} ${echo(v, 40)}: must be a record type's DeveloperName, such as ${def}`);
  return t;
}

export function npspSettings(raw: RawSettings): NpspSettings {
  const d = DEFAULT_NPSP_SETTINGS;
  const mode = (raw.SVC_NPSP_REFUND_MODE ?? d.refundMode).trim().toLowerCase();
  if (!MODES.includes(mode as NpspRefundSetting)) throw new ConfigError(`SVC_NPSP_REFUND_MODE ${echo(raw.SVC_NPSP_REFUND_MODE ?? '', 40)}: must be auto, stage or payments`);
  const out: NpspSettings = {
    refundMode: mode as NpspRefundSetting,
    stageWon: picklistValue(raw, 'SVC_NPSP_STAGE_WON', d.stageWon),
    stageRefunded: picklistValue(raw, 'SVC_NPSP_STAGE_REFUNDED', d.stageRefunded),
    stageCanceled: picklistValue(raw, 'SVC_NPSP_STAGE_CANCELED', d.stageCanceled),
    fundraiserRole: picklistValue(raw, 'SVC_NPSP_ROLE_FUNDRAISER', d.fundraiserRole),
    donationRecordType: developerName(raw, 'SVC_NPSP_DONATION_RECORD_TYPE', d.donationRecordType),
    orgRecordType: developerName(raw, 'SVC_NPSP_ORG_RECORD_TYPE', d.orgRecordType),
  };
  // A refunded or canceled gift must not look won: one stage for both would make every refund a win.
  if (out.stageRefunded === out.stageWon) throw new ConfigError(`SVC_NPSP_STAGE_REFUNDED: must differ from SVC_NPSP_STAGE_WON (both ${echo(out.stageWon, 40)})`);
  if (out.stageCanceled === out.stageWon) throw new ConfigError(`SVC_NPSP_STAGE_CANCELED: must differ from SVC_NPSP_STAGE_WON (both ${echo(out.stageWon, 40)})`);
  return out;
}
