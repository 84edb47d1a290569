/** serve's defaults, apart from the server: the command's declaration (and --help) names them without loading it. */
export const DEFAULT_SERVE = { host: '0.0.0.0', port: 8080, path: '/webhooks', keepDays: 7 } as const;
