// POST /messages/{message_id}/report. Checked in Zulip's order (zerver/views/message_report.py):
// the parameters, "An explanation is required." for `other` without a description, the
// organization's moderation request channel, the reporter's access to the message; then this
// service's hourly quota. The report is stored (taking its quota slot), Notification Bot posts it
// into the channel, and the stored report records that message.
import type { Model } from "mongoose";
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import type { GroupGraphCache } from "../../../shared/group-settings";
import { p, params } from "../../../shared/params";
import { clock } from "../../../shared/clock";
import { REPORT_TYPES, type ReportDoc, type ReportType } from "../models/report";
import { insertWithinQuota } from "../report-quota";
import { MAX_DESCRIPTION_LENGTH, reportContent, reportTopic, type Person } from "../report-notice";

export interface ModerationDeps {
	Report: Model<ReportDoc>;
	nextId: (entity: string) => Promise<number>;
	graphs: GroupGraphCache;
	realmUrl: string;
}

const notEnabled = () => badRequest("Message reporting is not enabled in this organization.");

export function reportActions(deps: ModerationDeps) {
	return {
		report: {
			params: params({
				message_id: p.int(),
				report_type: p.oneOf(REPORT_TYPES),
				description: p.string({ optional: true, max: MAX_DESCRIPTION_LENGTH }),
			}),
			async handler(ctx: Ctx<{ message_id: number; report_type: ReportType; description?: string }>) {
				const reporter = requireUser(ctx);
				const { message_id, report_type } = ctx.params;
				const description = ctx.params.description ?? "";
				if (report_type === "other" && description === "") throw badRequest("An explanation is required.");

				const channelId = (await deps.graphs.get()).moderationChannelId;
				if (channelId < 0) throw notEnabled();
				const message = await call(ctx, "messages.reportTarget", { message_id });
				// A channel archived or gone since it was chosen turns reporting off, as Zulip's
				// setting clears when its channel goes away.
				const channel = await call(ctx, "channels.notificationTarget", { channel_id: channelId }).catch(() => null);
				if (!channel || channel.is_archived) throw notEnabled();

				const peopleIds = [...new Set([message.sender_id, ...message.dm_user_ids])];
				const [{ users }, names] = await Promise.all([
					call(ctx, "users.getMany", { user_ids: peopleIds }),
					message.channel_id !== null ? call(ctx, "channels.names", { channel_ids: [message.channel_id] }) : Promise.resolve({ names: {} as Record<string, string> }),
				]);
				const people = new Map<number, Person>(users.map((u) => [u.user_id, { user_id: u.user_id, full_name: u.full_name }]));
				const reported = people.get(message.sender_id) ?? { user_id: message.sender_id, full_name: "Unknown user" };
				people.set(reported.user_id, reported);
				for (const id of message.dm_user_ids) if (!people.has(id)) people.set(id, { user_id: id, full_name: "Unknown user" });

				const report = await insertWithinQuota(deps.Report, {
					_id: await deps.nextId("report"),
					realm_id: reporter.realm_id,
					reporter_id: reporter.user_id,
					message_id,
					reported_user_id: message.sender_id,
					report_type,
					description,
					timestamp: clock.now(),
					notice_message_id: null,
					channel_id: channelId,
				});
				const content = reportContent({
					reporter: { user_id: reporter.user_id, full_name: reporter.full_name },
					message,
					people,
					channelName: message.channel_id !== null ? (names.names[String(message.channel_id)] ?? "") : "",
					reportType: report_type,
					description,
					realmUrl: deps.realmUrl,
				});
				const policy = channel.topics_policy === "inherit" ? (await deps.graphs.get()).topicsPolicy : channel.topics_policy;
				const topic = reportTopic(reported.full_name, policy === "empty_topic_only");
				try {
					const { id } = await call(ctx, "messages.sendNotice", { channel_id: channelId, topic, content });
					await deps.Report.updateOne({ _id: report._id }, { $set: { notice_message_id: id } });
				} catch (err) {
					// Not posted: the report is not kept and its quota slot is free again.
					await deps.Report.deleteOne({ _id: report._id });
					throw err;
				}
				return {};
			},
		},
	};
}
