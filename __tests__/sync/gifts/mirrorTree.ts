/** The mirror's own rows a gift's campaign tree is read from, written through the mirror's sink. */
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../../src/crm/sink.js';

/** The mirror's rows of §7's tree: segment 2 > project 3 > team 4 > action 7 (Piet Jansen). */
export async function mirrorTree(s: { emu: Emulator; sink: SalesforceSink }): Promise<void> {
  const id = (object: string, key: string): string => String(s.emu.get(object, key)?.Id);
  await s.sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_2', Name: 'Spring run', CreatedAt__c: '2016-01-31T23:30:00Z' }]);
  await s.sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_3', Name: 'Water', Visible__c: true, Closed__c: false, TargetAmount__c: 1000.4, Svc_Segment__c: id('Svc_Segment__c', 'Segment_2') }]);
  await s.sink.upsert('Svc_Team__c', [
    {
      SvcId__c: 'Team_4',
      Name: 'Runners',
      Visible__c: true,
      Closed__c: true,
      EndDate__c: '2016-06-30T22:30:00Z',
      Svc_Project__c: id('Svc_Project__c', 'Project_3'),
      Svc_Segment__c: id('Svc_Segment__c', 'Segment_2'),
    },
  ]);
  await s.sink.upsert('Svc_Action__c', [
    {
      SvcId__c: 'Action_7',
      Name: 'Piet Jansen',
      FirstName__c: 'Piet',
      LastName__c: 'Jansen',
      Email__c: 'piet@x.nl',
      City__c: 'Utrecht',
      Visible__c: true,
      Svc_Team__c: id('Svc_Team__c', 'Team_4'),
      Svc_Project__c: id('Svc_Project__c', 'Project_3'),
      Svc_Segment__c: id('Svc_Segment__c', 'Segment_2'),
    },
  ]);
}
