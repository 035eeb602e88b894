// User roles, as the API numbers them, and the one place that says what each role implies.
export const Role = {
	OWNER: 100,
	ADMINISTRATOR: 200,
	MODERATOR: 300,
	MEMBER: 400,
	GUEST: 600,
} as const;

export type RoleValue = (typeof Role)[keyof typeof Role];

export const ROLES: readonly RoleValue[] = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];

export const isOwner = (role: number) => role === Role.OWNER;
export const isAdmin = (role: number) => role <= Role.ADMINISTRATOR;
export const isModerator = (role: number) => role <= Role.MODERATOR;
export const isGuest = (role: number) => role === Role.GUEST;
