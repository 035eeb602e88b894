// The gateway's HTTP figures for Prometheus (METRICS_PORT): requests by method, route and status,
// and their latency. moleculer-web keeps none of its own. With metrics off the handler is returned
// as it is, so the request path does no extra work.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServiceBroker } from "moleculer";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export const HTTP_REQUESTS = "http.requests.total";
export const HTTP_REQUEST_TIME = "http.request.time";

/** Wraps the server's handler; `routeOf` names a request's route (a bounded set, for labels). */
export function observeHttp(broker: ServiceBroker, handler: Handler, routeOf: (method: string, url: string) => string): Handler {
	if (!broker.isMetricsEnabled()) return handler;
	broker.metrics.register({ type: "counter", name: HTTP_REQUESTS, labelNames: ["method", "route", "status"], description: "HTTP requests answered by the gateway", rate: false });
	broker.metrics.register({
		type: "histogram",
		name: HTTP_REQUEST_TIME,
		labelNames: ["method", "route"],
		unit: "millisecond",
		description: "Time from an HTTP request's arrival to the end of its answer",
		buckets: [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000],
		// Moleculer's Prometheus output has _sum and _count only beside quantiles.
		quantiles: [0.5, 0.9, 0.99],
	});
	return (req, res) => {
		const start = process.hrtime.bigint();
		// Read now: moleculer-web rewrites req.url on the way.
		const url = req.url ?? "";
		res.once("finish", () => {
			const method = req.method ?? "";
			const route = routeOf(method, url);
			broker.metrics.increment(HTTP_REQUESTS, { method, route, status: res.statusCode });
			broker.metrics.observe(HTTP_REQUEST_TIME, Number(process.hrtime.bigint() - start) / 1e6, { method, route });
		});
		handler(req, res);
	};
}
