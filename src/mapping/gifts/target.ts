/**
 * The gift projection's port (ARCHITECTURE.md "gifts"): what differs between the donation models
 * it writes (PROJECTION.md §0-§4): the donor objects, the gift object and its field table, the
 * soft-credit slot and the refund. One pipeline (sync/gifts) runs every target; Nonprofit Cloud
 * (npcTarget.ts) and NPSP (npspTarget.ts) are its adapters, each a table of data and small pure
 * functions, so a model is added beside the others, never as a copy of the writer.
 */
import type { ApiDonation } from '../../model/apiRecords.js';
import type { CrmRecord } from '../../model/crmRecords.js';
import type { GiftObject } from '../../model/objects.js';
import type { DonationDonors } from './donor.js';

type GiftValue = string | number | boolean | { [extField: string]: string };
export type GiftRecord = Record<string, GiftValue>;

/** What a target's field rules read of one eligible donation. */
export interface GiftInput {
  d: ApiDonation;
  donors: DonationDonors;
  /** G in cents. */
  gift: number;
  /** C in cents. */
  cover: number;
  /** T: the gift date in the gift time zone. */
  date: string;
  campaignKey: string | undefined;
  /** payment_status, trimmed and lower-cased (paid, refunded, chargedback). */
  status: string;
}

/** A refunded or charged-back donation: its refund date R (N15). */
export interface RefundInput extends GiftInput {
  refundDate: string;
}

/** One field of a gift: its value, or undefined when it is not sent. */
export interface FieldRule {
  field: string;
  value: (g: GiftInput) => GiftValue | undefined;
}

/** The Salesforce Ids a gift points at, as the donor step resolved them. */
export interface GiftLinks {
  /** The gift's donor record (NPC: the Account; NPSP: the Contact, or the Organization Account). */
  donor?: string | undefined;
  /** NPSP: the primary contact (the person donor, or a company donation's person). */
  primaryContact?: string | undefined;
  /** NPSP: the gift's Account (the Organization Account, or the primary contact's household). */
  account?: string | undefined;
}

/** N6 / P4: the fields a hit fills one by one when blank, and the blocks filled only when all blank. */
export interface FillRule {
  single: readonly string[];
  blocks: ReadonlyArray<readonly string[]>;
}

/** One donor object as the donor step reads it: which fields, which of them are emails, and which rows are persons. */
export interface DonorObjectSpec {
  object: GiftObject;
  /** What matching and fill-blanks compare (§1.3, N6), read alike by every query. */
  valueFields: readonly string[];
  /** The email fields step 3 looks in (none: organisations are matched by key only, P5). */
  emailFields: readonly string[];
  /** Whether the object's rows are persons; `IsPersonAccount`: as the row says (NPC's Account). */
  person: boolean | 'IsPersonAccount';
}

export interface GiftTarget {
  /** The model's name as `--json` and the run header say it. */
  model: 'npc' | 'npsp';
  /** Where persons and organisations live (the same object in NPC: Person and Business Accounts). */
  donorObjects: { person: DonorObjectSpec; organisation: DonorObjectSpec };
  /** A person donor's fields in this model, from the plan's (named as NPC's Person Account names them). */
  personFields: (fields: Readonly<Record<string, string>>) => Record<string, string>;
  /** NPSP: a company donation's person is the gift's primary contact (P6), so no fundraiser slot for them (P9). */
  companyPersonIsPrimary: boolean;
  fill: FillRule;
  gift: {
    object: GiftObject;
    /** The field table (upsert on SvcGiftKey__c). */
    fields: readonly FieldRule[];
    /** The fields compared with the org's record (the table's plain fields and the links). */
    compared: readonly string[];
    /** The lookup fields from the resolved Ids; a blank one is cleared. */
    links: (ids: GiftLinks) => CrmRecord;
    /** `audit --fix` on a donation gone or no longer eligible (§2.3, N20, P12): the status it gets; never deleted. */
    canceled: Readonly<Record<string, string>>;
  };
  slot: {
    object: GiftObject;
    compared: readonly string[];
    /** The slot's parent (master-detail or not updateable): set on insert only. */
    giftField: string;
    recipientField: string;
    /** The gift's field naming the record a slot never credits (§4: the donor's own gift; NPSP: its primary contact). */
    selfField: string;
    /** The slot record (plain fields are sent; recipient and gift by Id are the writer's). */
    record: (giftKey: string, recipientKey: string) => GiftRecord;
    /** Upsert on SvcSoftCreditKey__c (an external id), or query it and update by Id / insert (a plain field, §0). */
    byExternalId: boolean;
  };
  refund?:
    | {
        object: GiftObject;
        compared: readonly string[];
        giftField: string;
        record: (r: RefundInput) => GiftRecord;
        /**
         * NPSP `payments`: a refund points at its gift's one paid record without a refund key
         * (P10), read by the gift field with the refunds themselves; set on insert only.
         */
        original?: { field: string; paidField: string } | undefined;
      }
    | undefined;
}
