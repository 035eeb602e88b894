// GET /server_settings (no authentication: what a client needs before it logs in), and the
// do-nothing action the bench measures as its baseline.
import { pushConfigured } from "../../../shared/config";
import { params } from "../../../shared/params";
import { serverSettings } from "./server-settings";
import type { ServiceDeps } from "../deps";

export function serverActions({ db, config }: ServiceDeps) {
	return {
		serverSettings: {
			params: params({}),
			handler() {
				return serverSettings(db.realm, config.maxFileUploadSizeMib, pushConfigured(config));
			},
		},

		/** The do-nothing action `npm run bench` measures as its baseline. */
		noop: {
			params: params({}),
			handler() {
				return {};
			},
		},
	};
}
