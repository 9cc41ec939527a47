// The heavy parts (ingestion with its MLflow client, the reports with chart.js) load when a command uses them;
// the reports' renderer loads later still, when something is drawn.
import type * as Tracking from '../tracking-plugin';
import type * as Reports from '../reports';

/* eslint-disable @typescript-eslint/no-require-imports -- a require at call time is the point */
export const tracking = (): typeof Tracking => require('../tracking-plugin') as typeof Tracking;
export const reports = (): typeof Reports => require('../reports') as typeof Reports;
