// Every incoming webhook integration, by the name in its URL. One line each, in the order they
// were added: a new integration is its module in integrations/ and one line here.
import type { Integration } from "./integration";
import { github } from "./integrations/github";
import { gitlab } from "./integrations/gitlab";
import { gitea } from "./integrations/gitea";
import { gogs } from "./integrations/gogs";
import { bitbucket } from "./integrations/bitbucket";
import { bitbucket2 } from "./integrations/bitbucket2";
import { bitbucket3 } from "./integrations/bitbucket3";
import { azuredevops } from "./integrations/azuredevops";
import { jira } from "./integrations/jira";
import { linear } from "./integrations/linear";
import { sentry } from "./integrations/sentry";
import { grafana } from "./integrations/grafana";
import { alertmanager } from "./integrations/alertmanager";
import { pagerduty } from "./integrations/pagerduty";
import { opsgenie } from "./integrations/opsgenie";
import { zabbix } from "./integrations/zabbix";
import { newrelic } from "./integrations/newrelic";
import { splunk } from "./integrations/splunk";
import { uptimerobot } from "./integrations/uptimerobot";
import { pingdom } from "./integrations/pingdom";
import { statuspage } from "./integrations/statuspage";
import { travis } from "./integrations/travis";
import { buildbot } from "./integrations/buildbot";
import { teamcity } from "./integrations/teamcity";
import { gocd } from "./integrations/gocd";
import { circleci } from "./integrations/circleci";
import { semaphore } from "./integrations/semaphore";
import { netlify } from "./integrations/netlify";
import { heroku } from "./integrations/heroku";
import { harbor } from "./integrations/harbor";
import { sonarqube } from "./integrations/sonarqube";
import { json } from "./integrations/json";
import { airbrake } from "./integrations/airbrake";
import { appveyor } from "./integrations/appveyor";
import { canarytoken } from "./integrations/canarytoken";
import { errbit } from "./integrations/errbit";
import { codeship } from "./integrations/codeship";
import { delighted } from "./integrations/delighted";
import { freshping } from "./integrations/freshping";
import { helloworld } from "./integrations/helloworld";
import { homeassistant } from "./integrations/homeassistant";
import { insping } from "./integrations/insping";
import { crashlytics } from "./integrations/crashlytics";
import { dropbox } from "./integrations/dropbox";
import { ifttt } from "./integrations/ifttt";
import { zapier } from "./integrations/zapier";
import { transifex } from "./integrations/transifex";
import { beanstalk } from "./integrations/beanstalk";
import { ansibletower } from "./integrations/ansibletower";
import { mention } from "./integrations/mention";
import { gosquared } from "./integrations/gosquared";
import { papertrail } from "./integrations/papertrail";
import { wordpress } from "./integrations/wordpress";
import { zendesk } from "./integrations/zendesk";
import { updown } from "./integrations/updown";
import { greenhouse } from "./integrations/greenhouse";
import { rundeck } from "./integrations/rundeck";
import { opencollective } from "./integrations/opencollective";
import { thinkst } from "./integrations/thinkst";
import { hellosign } from "./integrations/hellosign";
import { groove } from "./integrations/groove";
import { radarr } from "./integrations/radarr";
import { sonarr } from "./integrations/sonarr";
import { lidarr } from "./integrations/lidarr";
import { patreon } from "./integrations/patreon";
import { freshstatus } from "./integrations/freshstatus";
import { reviewboard } from "./integrations/reviewboard";
import { rhodecode } from "./integrations/rhodecode";
import { trello } from "./integrations/trello";
import { stripe } from "./integrations/stripe";
import { intercom } from "./integrations/intercom";
import { freshdesk } from "./integrations/freshdesk";
import { front } from "./integrations/front";
import { basecamp } from "./integrations/basecamp";
import { flock } from "./integrations/flock";
import { appfollow } from "./integrations/appfollow";
import { dialogflow } from "./integrations/dialogflow";
import { raygun } from "./integrations/raygun";
import { beeminder } from "./integrations/beeminder";
import { airbyte } from "./integrations/airbyte";
import { librato } from "./integrations/librato";
import { wekan } from "./integrations/wekan";
import { slack } from "./integrations/slack";
import { jotform } from "./integrations/jotform";
import { slackIncoming } from "./integrations/slack_incoming";
import { clubhouse } from "./integrations/clubhouse";
import { taiga } from "./integrations/taiga";
import { pivotal } from "./integrations/pivotal";

export const INTEGRATIONS: Integration[] = [
	github,
	gitlab,
	gitea,
	gogs,
	bitbucket,
	bitbucket2,
	bitbucket3,
	azuredevops,
	jira,
	linear,
	sentry,
	grafana,
	alertmanager,
	pagerduty,
	opsgenie,
	zabbix,
	newrelic,
	splunk,
	uptimerobot,
	pingdom,
	statuspage,
	travis,
	buildbot,
	teamcity,
	gocd,
	circleci,
	semaphore,
	netlify,
	heroku,
	harbor,
	sonarqube,
	slackIncoming,
	json,
	airbrake,
	appveyor,
	canarytoken,
	errbit,
	codeship,
	delighted,
	freshping,
	helloworld,
	homeassistant,
	insping,
	crashlytics,
	dropbox,
	ifttt,
	zapier,
	transifex,
	beanstalk,
	ansibletower,
	mention,
	gosquared,
	papertrail,
	wordpress,
	zendesk,
	updown,
	greenhouse,
	rundeck,
	opencollective,
	thinkst,
	hellosign,
	groove,
	radarr,
	sonarr,
	lidarr,
	patreon,
	freshstatus,
	reviewboard,
	rhodecode,
	trello,
	stripe,
	intercom,
	freshdesk,
	front,
	basecamp,
	flock,
	appfollow,
	dialogflow,
	raygun,
	beeminder,
	airbyte,
	librato,
	wekan,
	slack,
	jotform,
	clubhouse,
	taiga,
	pivotal,
];

const byName = new Map<string, Integration>();
for (const i of INTEGRATIONS) for (const name of [i.name, ...(i.aliases ?? [])]) byName.set(name, i);

export const integrationNamed = (name: string): Integration | undefined => byName.get(name);
