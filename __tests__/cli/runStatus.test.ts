import { describe, expect, it } from '@jest/globals';
import { ConfigError, EXIT, InterruptedError, OrgSetupError } from '../../src/model/errors.js';
import { auditRunStatus, engineRunStatus } from '../../src/cli/runStatus.js';

// README "Exit codes", decided from the facts of a run without running one.
describe('the exit code of sync, object and replay', () => {
  const clean = { stopped: undefined, written: 0, failed: 0, shortfall: undefined };

  it('is 0 for a run that did all it was asked, 1 when a record failed or something was left short', () => {
    expect(engineRunStatus(clean)).toBe(EXIT.OK);
    expect(engineRunStatus({ ...clean, written: 40 })).toBe(EXIT.OK);
    expect(engineRunStatus({ ...clean, failed: 2 })).toBe(EXIT.PARTIAL);
    expect(engineRunStatus({ ...clean, shortfall: '3 lines of --file x.csv could not be read' })).toBe(EXIT.PARTIAL);
  });

  it('is 3 when the one record asked for is not on the platform and nothing else went wrong', () => {
    expect(engineRunStatus({ ...clean, notFound: true })).toBe(EXIT.NOT_FOUND);
    expect(engineRunStatus({ ...clean, notFound: true, failed: 1 })).toBe(EXIT.PARTIAL);
    expect(engineRunStatus({ ...clean, notFound: true, stopped: new InterruptedError('SIGINT') })).toBe(EXIT.INTERRUPTED);
  });

  it('is 130 / 143 for a stop by Ctrl-C / SIGTERM, written or not', () => {
    expect(engineRunStatus({ ...clean, stopped: new InterruptedError('SIGINT') })).toBe(EXIT.INTERRUPTED);
    expect(engineRunStatus({ ...clean, stopped: new InterruptedError('SIGTERM'), written: 10, failed: 1 })).toBe(EXIT.TERMINATED);
  });

  it('keeps exit 2 ("nothing written") for a fatal stop only while nothing was written', () => {
    const fatal = new ConfigError('SVC_API_KEY: refused by the platform');
    expect(engineRunStatus({ ...clean, stopped: fatal })).toBe(EXIT.USAGE);
    expect(engineRunStatus({ ...clean, stopped: fatal, written: 1 })).toBe(EXIT.PARTIAL);
    // An error that is not a configuration error never makes a stopped run look complete.
    expect(engineRunStatus({ ...clean, stopped: new Error('socket hang up') })).toBeGreaterThanOrEqual(EXIT.PARTIAL);
  });

  it('is 2 for a run stopped at an object the org refuses every write of, whatever it wrote before', () => {
    const setup = new OrgSetupError('Svc_Donation__c', 'every write of Svc_Donation__c fails: Svc_Donation__c.Amount__c is read-only');
    expect(engineRunStatus({ ...clean, stopped: setup, written: 91, failed: 92 })).toBe(EXIT.USAGE);
    expect(engineRunStatus({ ...clean, stopped: setup })).toBe(EXIT.USAGE);
  });
});

describe('the exit code of audit', () => {
  const exact = { stopped: undefined, open: 0, failed: false, problems: 0 };

  it('is 0 only for an exact mirror, 1 for drift left, a failed fix or a record it could not judge', () => {
    expect(auditRunStatus(exact)).toBe(EXIT.OK);
    expect(auditRunStatus({ ...exact, open: 1 })).toBe(EXIT.PARTIAL);
    expect(auditRunStatus({ ...exact, failed: true })).toBe(EXIT.PARTIAL);
    expect(auditRunStatus({ ...exact, problems: 3 })).toBe(EXIT.PARTIAL);
  });

  it("is the stop's own code when a signal or a guard stopped it", () => {
    expect(auditRunStatus({ ...exact, open: 5, stopped: new InterruptedError('SIGTERM') })).toBe(EXIT.TERMINATED);
    expect(auditRunStatus({ ...exact, stopped: new InterruptedError('SIGINT') })).toBe(EXIT.INTERRUPTED);
  });
});
