-- Authenticates a key and, in the same round trip, admits the request against the exact
-- sliding 60-second window of its allowance ('request' or 'poll'). Hits are serialised per
-- account and allowance with a transaction-scoped advisory lock, so several API processes on
-- one database never admit more than the limit in any window.
CREATE OR REPLACE FUNCTION verbatim_authenticate(p_secret_hash text, p_allowance text, p_now timestamptz)
RETURNS TABLE (
  account_id text,
  key_id text,
  plan text,
  credits double precision,
  admitted boolean,
  rate_limit integer,
  rate_remaining integer,
  rate_reset timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  found_key record;
  account_limit integer;
  key_limit integer;
  account_used integer;
  account_oldest timestamptz;
  key_used integer := 0;
  key_oldest timestamptz;
BEGIN
  SELECT k.id AS key_id, k.account_id, k.requests_per_minute AS key_requests_per_minute,
         a.plan, a.credits, p.requests_per_minute, p.polls_per_minute
    INTO found_key
    FROM api_keys k
    JOIN accounts a ON a.id = k.account_id
    JOIN plans p ON p.name = a.plan
   WHERE k.secret_hash = p_secret_hash
     AND (k.revoked_at IS NULL OR k.revoked_at > p_now);
  IF NOT FOUND THEN
    RETURN;
  END IF;

  IF p_allowance = 'poll' THEN
    account_limit := found_key.polls_per_minute;
    key_limit := NULL;
  ELSE
    account_limit := found_key.requests_per_minute;
    key_limit := found_key.key_requests_per_minute;
  END IF;

  PERFORM pg_advisory_xact_lock(hashtext('verbatim:rate:' || p_allowance || ':' || found_key.account_id));
  DELETE FROM rate_limit_hits h
   WHERE h.account_id = found_key.account_id AND h.allowance = p_allowance AND h.at <= p_now - interval '60 seconds';
  SELECT count(*), min(h.at) INTO account_used, account_oldest
    FROM rate_limit_hits h
   WHERE h.account_id = found_key.account_id AND h.allowance = p_allowance;
  IF key_limit IS NOT NULL THEN
    SELECT count(*), min(h.at) INTO key_used, key_oldest
      FROM rate_limit_hits h
     WHERE h.key_id = found_key.key_id AND h.allowance = p_allowance;
  END IF;

  admitted := account_used < account_limit AND (key_limit IS NULL OR key_used < key_limit);
  IF admitted THEN
    INSERT INTO rate_limit_hits (account_id, key_id, allowance, at)
    VALUES (found_key.account_id, found_key.key_id, p_allowance, p_now);
    account_used := account_used + 1;
    key_used := key_used + 1;
    account_oldest := coalesce(account_oldest, p_now);
    key_oldest := coalesce(key_oldest, p_now);
  END IF;

  IF key_limit IS NOT NULL AND key_limit - key_used < account_limit - account_used THEN
    rate_limit := key_limit;
    rate_remaining := greatest(key_limit - key_used, 0);
    rate_reset := coalesce(key_oldest, p_now) + interval '60 seconds';
  ELSE
    rate_limit := account_limit;
    rate_remaining := greatest(account_limit - account_used, 0);
    rate_reset := coalesce(account_oldest, p_now) + interval '60 seconds';
  END IF;
  account_id := found_key.account_id;
  key_id := found_key.key_id;
  plan := found_key.plan;
  credits := found_key.credits;
  RETURN NEXT;
END;
$$;
--> statement-breakpoint

-- Takes one of the account's extraction slots, if one is free. Expired leases (their process
-- stopped renewing them) are dropped first, so a dead process's slots come back.
CREATE OR REPLACE FUNCTION verbatim_acquire_slot(
  p_lease_id text,
  p_account_id text,
  p_slots integer,
  p_holder text,
  p_now timestamptz,
  p_lease_seconds integer
)
RETURNS TABLE (acquired boolean, in_use integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('verbatim:slots:' || p_account_id));
  DELETE FROM slot_leases s WHERE s.account_id = p_account_id AND s.expires_at <= p_now;
  SELECT count(*) INTO in_use FROM slot_leases s WHERE s.account_id = p_account_id;
  acquired := in_use < p_slots;
  IF acquired THEN
    INSERT INTO slot_leases (id, account_id, holder, acquired_at, expires_at)
    VALUES (p_lease_id, p_account_id, p_holder, p_now, p_now + make_interval(secs => p_lease_seconds));
    in_use := in_use + 1;
  END IF;
  RETURN NEXT;
END;
$$;
