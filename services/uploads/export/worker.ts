// The uploads service's export worker: what the export actions and jobs share (run-export.ts),
// made when the service starts, with its sweep of stalled exports; stopping waits for the exports
// this replica is writing (they fail fast: each file checks `stopping`).
import type { Connection } from "mongoose";
import type { ServiceBroker } from "moleculer";
import type { Config } from "../../../shared/config";
import type { FileStore } from "../file-store";
import { realmExportModel } from "../models/realm-export";
import type { UploadSpace } from "../upload-space";
import { failStalled, type ExportDeps, type ExportLogger } from "./run-export";

/** How often each replica looks for stalled exports. */
const SWEEP_MS = 60 * 1000;

export function exportWorker(config: Pick<Config, "externalUrl" | "ownerEmail">) {
	const deps = { running: new Set(), stopping: false, siteUrl: config.externalUrl, supportEmail: config.ownerEmail } as unknown as ExportDeps;
	let sweeper: NodeJS.Timeout | undefined;
	return {
		deps,
		/** Call before the service's ensureIndexes, so the model's indexes are made with the others. */
		start(o: { conn: Connection; store: FileStore; space: UploadSpace; nextId: (entity: string) => Promise<number>; broker: ServiceBroker; logger: ExportLogger }) {
			Object.assign(deps, {
				Export: realmExportModel(o.conn),
				store: o.store,
				space: o.space,
				nextId: o.nextId,
				bus: o.broker,
				logger: o.logger,
			} satisfies Partial<ExportDeps>);
			sweeper = setInterval(() => {
				failStalled(deps).catch((err: unknown) => deps.logger.warn({ err }, "failing stalled data exports failed"));
			}, SWEEP_MS);
			sweeper.unref();
		},
		async stop() {
			clearInterval(sweeper);
			deps.stopping = true;
			await Promise.allSettled([...deps.running]);
		},
	};
}
