DROP INDEX "slot_leases_account_idx";--> statement-breakpoint
ALTER TABLE "slot_leases" ADD COLUMN "pool" text DEFAULT 'extraction' NOT NULL;--> statement-breakpoint
CREATE INDEX "slot_leases_account_idx" ON "slot_leases" USING btree ("account_id","pool","expires_at");--> statement-breakpoint
DROP FUNCTION verbatim_acquire_slot(text, text, integer, text, timestamptz, integer);--> statement-breakpoint
-- Takes one of the account's slots in a pool, if one is free. Expired leases (their process
-- stopped renewing them) are dropped first, so a dead process's slots come back. The lock is the
-- pool's, so requests and jobs of one account do not wait on each other.
CREATE FUNCTION verbatim_acquire_slot(
  p_lease_id text,
  p_account_id text,
  p_pool text,
  p_slots integer,
  p_holder text,
  p_now timestamptz,
  p_lease_seconds integer
)
RETURNS TABLE (acquired boolean, in_use integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('verbatim:slots:' || p_pool || ':' || p_account_id));
  DELETE FROM slot_leases s WHERE s.account_id = p_account_id AND s.pool = p_pool AND s.expires_at <= p_now;
  SELECT count(*) INTO in_use FROM slot_leases s WHERE s.account_id = p_account_id AND s.pool = p_pool;
  acquired := in_use < p_slots;
  IF acquired THEN
    INSERT INTO slot_leases (id, account_id, pool, holder, acquired_at, expires_at)
    VALUES (p_lease_id, p_account_id, p_pool, p_holder, p_now, p_now + make_interval(secs => p_lease_seconds));
    in_use := in_use + 1;
  END IF;
  RETURN NEXT;
END;
$$;
