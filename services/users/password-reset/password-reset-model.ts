// Password reset links waiting to be opened, and the per-address budget of reset emails.
// Queries: a link by the hash of its key (_id); a user's links -> { user_id }; expired links and
// budget windows -> { expires }.
import { Connection, Schema } from "mongoose";

export interface PasswordResetDoc {
	/** SHA-256 (hex) of the secret in the link: the database alone does not open it. */
	_id: string;
	user_id: number;
	/** UNIX seconds after which the link no longer works. */
	expires: number;
}

/** Reset emails asked for one address in one window (Zulip's password_reset_form_by_email rule). */
export interface PasswordResetBudgetDoc {
	/** `<window seconds>:<window number>:<address, lower case>`. */
	_id: string;
	count: number;
	/** UNIX seconds when the window ends. */
	expires: number;
}

const resetSchema = new Schema<PasswordResetDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		expires: { type: Number, required: true },
	},
	{ versionKey: false },
);
resetSchema.index({ user_id: 1 });
resetSchema.index({ expires: 1 });

const budgetSchema = new Schema<PasswordResetBudgetDoc>(
	{
		_id: String,
		count: { type: Number, required: true },
		expires: { type: Number, required: true },
	},
	{ versionKey: false },
);
budgetSchema.index({ expires: 1 });

export const passwordResetModel = (conn: Connection) => conn.model<PasswordResetDoc>("PasswordReset", resetSchema, "password_resets");
export const passwordResetBudgetModel = (conn: Connection) => conn.model<PasswordResetBudgetDoc>("PasswordResetBudget", budgetSchema, "password_reset_budgets");
