ALTER TABLE "credit_ledger" DROP CONSTRAINT "credit_ledger_kind";--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD COLUMN "charge_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_charge_key_idx" ON "credit_ledger" USING btree ("charge_key","kind");--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_kind" CHECK ("credit_ledger"."kind" in ('charge', 'reversal', 'grant', 'refill'));