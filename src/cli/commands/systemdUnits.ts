/**
 * The systemd units of `svc-sync deploy systemd`: `serve`, and `sync` on a timer, whose ExecStart
 * names the Node and the CLI of the install by absolute path. systemd runs services with its own
 * PATH (/usr/bin first), where `#!/usr/bin/env node` finds the system's Node, often older than the
 * floor: the unit then only ever printed the floor line and exit 2, which it does not restart.
 */

/** Where the units run svc-sync from: absolute paths, checked by the command. */
export interface UnitPaths {
  node: string;
  cli: string;
  port: number;
}

export interface UnitFile {
  name: string;
  text: string;
}

const STATE = '/var/lib/svc-sync';

/** Shared by both services: the user, the settings, the state folder. */
const RUN_AS = [
  'User=svc-sync',
  'Group=svc-sync',
  'EnvironmentFile=/etc/svc-sync/svc-sync.env',
  '# The state, the queue, the platform profile and the run lock: /var/lib/svc-sync/.svc-sync/',
  'StateDirectory=svc-sync',
  'StateDirectoryMode=0750',
  `WorkingDirectory=${STATE}`,
];

/** Hardening both services carry. Not MemoryDenyWriteExecute=: V8's JIT writes the code it runs. */
const HARDENING = [
  "# Hardening. Not MemoryDenyWriteExecute=: V8's JIT writes the code it runs.",
  'NoNewPrivileges=yes',
  'ProtectSystem=strict',
  `ReadWritePaths=${STATE}`,
  'ProtectHome=yes',
  'PrivateTmp=yes',
  'PrivateDevices=yes',
  'ProtectKernelTunables=yes',
  'ProtectKernelModules=yes',
  'ProtectKernelLogs=yes',
  'ProtectControlGroups=yes',
  'ProtectClock=yes',
  'ProtectHostname=yes',
  'ProtectProc=invisible',
  'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
  'RestrictNamespaces=yes',
  'RestrictRealtime=yes',
  'RestrictSUIDSGID=yes',
  'LockPersonality=yes',
  'RemoveIPC=yes',
  'CapabilityBoundingSet=',
  'AmbientCapabilities=',
  'SystemCallArchitectures=native',
  'SystemCallFilter=@system-service',
  'SystemCallErrorNumber=EPERM',
  'UMask=0077',
];

const execStart = (p: UnitPaths, args: string): string => `ExecStart=${p.node} ${p.cli} ${args}`;

function header(what: string[], p: UnitPaths): string[] {
  return [
    ...what,
    "# Written by `svc-sync deploy systemd` for one install, named by path (systemd's PATH may find",
    '# an older node first; generate the units again after moving either):',
    `#   Node: ${p.node}`,
    `#   CLI:  ${p.cli}`,
  ];
}

/** A service's [Unit] section (after the network is up) and the head of its [Service]. */
const serviceStart = (description: string): string[] => ['', '[Unit]', `Description=${description}`, 'Wants=network-online.target', 'After=network-online.target', '', '[Service]'];

function serveUnit(p: UnitPaths): string[] {
  return [
    ...header(
      [
        "# svc-sync serve: the platform's webhooks, stored durably, synced in batches. Settings",
        '# (secrets included) in the environment file, readable by root only: systemd reads it',
        '# before dropping to User=. Install: docs/operations.md, "systemd".',
      ],
      p,
    ),
    ...serviceStart('svc-sync webhook receiver (svc-sync serve)'),
    'Type=exec',
    ...RUN_AS,
    execStart(p, `serve --port ${p.port}`),
    '# SIGTERM: the batch in flight finishes, its events go back to the queue, exit 143.',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=120',
    'SuccessExitStatus=143',
    'Restart=on-failure',
    'RestartSec=5s',
    "# Exit 2 is a setting to fix (a short secret, a port in use): restarting won't help.",
    'RestartPreventExitStatus=2',
    '',
    ...HARDENING,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  ];
}

function syncUnit(p: UnitPaths): string[] {
  return [
    ...header(
      [
        '# svc-sync sync, once: started every 15 minutes by svc-sync-sync.timer (instead of cron).',
        '# Each run appends one JSON line to /var/lib/svc-sync/sync.jsonl; its stderr (one line when',
        '# a run fails or is partial) goes to the journal. Run the first backfill (sync --all) first.',
      ],
      p,
    ),
    ...serviceStart('svc-sync: one incremental sync'),
    'Type=oneshot',
    ...RUN_AS,
    execStart(p, 'sync --json-lines -q'),
    `StandardOutput=append:${STATE}/sync.jsonl`,
    '# 75: another run (a backfill started by hand) holds the state; this one did nothing.',
    '# 143: stopped by SIGTERM after saving its progress; the next run resumes.',
    'SuccessExitStatus=75 143',
    'TimeoutStopSec=120',
    '',
    ...HARDENING,
  ];
}

const TIMER = [
  '# Starts svc-sync-sync.service every 15 minutes: the alternative to the cron recipe of',
  '# docs/operations.md. A run still going when the next one is due is not started twice',
  '# (systemd starts a oneshot unit only once). Written by `svc-sync deploy systemd`.',
  '',
  '[Unit]',
  'Description=svc-sync sync every 15 minutes',
  '',
  '[Timer]',
  'OnCalendar=*:0/15',
  'AccuracySec=1min',
  'Persistent=true',
  'Unit=svc-sync-sync.service',
  '',
  '[Install]',
  'WantedBy=timers.target',
];

/** The three files, named as systemd expects them in /etc/systemd/system/. */
export function systemdUnits(p: UnitPaths): UnitFile[] {
  const file = (name: string, lines: string[]): UnitFile => ({ name, text: `${lines.join('\n')}\n` });
  return [file('svc-sync.service', serveUnit(p)), file('svc-sync-sync.service', syncUnit(p)), file('svc-sync-sync.timer', TIMER)];
}
