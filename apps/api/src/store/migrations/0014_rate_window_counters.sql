-- A rate window becomes 60 per-second counters: the array of every admitted hit's time made each
-- admission read, filter and write back up to the allowance's limit of timestamps, so a request
-- cost more the higher an account's limit. Windows in use are carried over: each hit of the last
-- 60 seconds before the window's newest one is counted in the second it was admitted in.
ALTER TABLE "rate_windows" ADD COLUMN "counts" integer[];--> statement-breakpoint
ALTER TABLE "rate_windows" ADD COLUMN "newest_second" bigint;--> statement-breakpoint
UPDATE "rate_windows" w
   SET "newest_second" = coalesce(floor(extract(epoch FROM (SELECT max(hit) FROM unnest(w.hits) AS hit)))::bigint, 0);--> statement-breakpoint
UPDATE "rate_windows" w
   SET "counts" = (
     SELECT array_agg(coalesce(per_second.hits, 0) ORDER BY slot)
       FROM generate_series(1, 60) AS slot
       LEFT JOIN (
         SELECT floor(extract(epoch FROM hit))::bigint AS second, count(*)::integer AS hits
           FROM unnest(w.hits) AS hit
          GROUP BY 1
       ) per_second
         ON per_second.second > w.newest_second - 60 AND 1 + per_second.second % 60 = slot
   );--> statement-breakpoint
ALTER TABLE "rate_windows" ALTER COLUMN "counts" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_windows" ALTER COLUMN "newest_second" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_windows" DROP COLUMN "hits";--> statement-breakpoint
DROP FUNCTION verbatim_recent_hits(timestamptz[], timestamptz);--> statement-breakpoint

-- A window as of second `p_at` (never before its newest second): its counters, those of seconds
-- 60 or more before `p_at` set to 0, their sum, and the oldest second still counted (null when
-- none is). Counter `slot` (1 to 60) holds the latest second up to `p_newest` that is `slot - 1`
-- modulo 60.
CREATE FUNCTION verbatim_window_at(
  p_counts integer[],
  p_newest bigint,
  p_at bigint,
  OUT counts integer[],
  OUT total integer,
  OUT oldest bigint
)
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(live.count ORDER BY live.slot),
         coalesce(sum(live.count), 0)::integer,
         min(live.second) FILTER (WHERE live.count > 0)
    FROM (
      SELECT slot, second, CASE WHEN second > p_at - 60 THEN coalesce(p_counts[slot], 0) ELSE 0 END AS count
        FROM generate_series(1, 60) AS slot,
             LATERAL (SELECT p_newest - (((p_newest - (slot - 1)) % 60) + 60) % 60 AS second) AS slot_second
    ) live
$$;
--> statement-breakpoint

-- The counters with one more request in second `p_second`, whose counter is `1 + p_second % 60`.
CREATE FUNCTION verbatim_counted(p_counts integer[], p_second bigint) RETURNS integer[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_counts[1:(p_second % 60)::integer]
         || (p_counts[1 + (p_second % 60)::integer] + 1)
         || p_counts[(p_second % 60)::integer + 2:60]
$$;
--> statement-breakpoint

-- Authenticates a key and, in the same round trip, admits the request against the sliding
-- 60-second window of its allowance ('request' or 'poll'), at one-second resolution: admitted
-- when the window counted fewer than `limit` requests in the 60 seconds up to this one. A request
-- frees its place when the 60th second after the one it was admitted in begins. The window rows
-- of the account (and of a key with a lower limit) are locked in that order for the statement,
-- so API processes on one database never admit more than the limit in any 60 seconds; a process
-- whose clock lags counts in the window's newest second. It also answers the request allowance,
-- which `GET /me` shows while counting against the polling allowance, and records when the key
-- was last used.
CREATE OR REPLACE FUNCTION verbatim_authenticate(p_secret_hash text, p_allowance text, p_now timestamptz)
RETURNS TABLE (
  account_id text,
  key_id text,
  plan text,
  credits double precision,
  admitted boolean,
  rate_limit integer,
  rate_remaining integer,
  rate_reset timestamptz,
  request_limit integer,
  request_remaining integer,
  request_reset timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  found_key record;
  now_second bigint := floor(extract(epoch FROM p_now))::bigint;
  empty_counts integer[] := array_fill(0, ARRAY[60]);
  account_scope text;
  key_scope text;
  account_limit integer;
  key_limit integer;
  account_second bigint;
  account_counts integer[];
  account_total integer;
  account_oldest bigint;
  key_second bigint;
  key_counts integer[];
  key_total integer := 0;
  key_oldest bigint;
  request_total integer;
  request_oldest bigint;
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

  -- What the dashboard shows as "last used": written at most once a minute per key.
  UPDATE api_keys SET last_used_at = date_trunc('minute', p_now)
   WHERE id = found_key.key_id
     AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', p_now));

  -- Losing the last hits in a crash is harmless; holding the window's row lock through every
  -- admission's WAL flush is not.
  PERFORM set_config('synchronous_commit', 'off', true);

  account_scope := p_allowance || ':' || found_key.account_id;
  IF p_allowance = 'poll' THEN
    account_limit := found_key.polls_per_minute;
  ELSE
    account_limit := found_key.requests_per_minute;
    key_limit := found_key.key_requests_per_minute;
    key_scope := 'request:' || found_key.key_id;
  END IF;

  INSERT INTO rate_windows (scope, counts, newest_second) VALUES (account_scope, empty_counts, now_second)
    ON CONFLICT DO NOTHING;
  SELECT greatest(w.newest_second, now_second), live.counts, live.total, live.oldest
    INTO account_second, account_counts, account_total, account_oldest
    FROM rate_windows w,
         LATERAL verbatim_window_at(w.counts, w.newest_second, greatest(w.newest_second, now_second)) live
   WHERE w.scope = account_scope
     FOR UPDATE OF w;
  IF key_limit IS NOT NULL THEN
    INSERT INTO rate_windows (scope, counts, newest_second) VALUES (key_scope, empty_counts, now_second)
      ON CONFLICT DO NOTHING;
    SELECT greatest(w.newest_second, now_second), live.counts, live.total, live.oldest
      INTO key_second, key_counts, key_total, key_oldest
      FROM rate_windows w,
           LATERAL verbatim_window_at(w.counts, w.newest_second, greatest(w.newest_second, now_second)) live
     WHERE w.scope = key_scope
       FOR UPDATE OF w;
  END IF;

  admitted := account_total < account_limit AND (key_limit IS NULL OR key_total < key_limit);
  IF admitted THEN
    account_counts := verbatim_counted(account_counts, account_second);
    account_total := account_total + 1;
    account_oldest := coalesce(account_oldest, account_second);
    UPDATE rate_windows SET counts = account_counts, newest_second = account_second WHERE scope = account_scope;
    IF key_limit IS NOT NULL THEN
      key_counts := verbatim_counted(key_counts, key_second);
      key_total := key_total + 1;
      key_oldest := coalesce(key_oldest, key_second);
      UPDATE rate_windows SET counts = key_counts, newest_second = key_second WHERE scope = key_scope;
    END IF;
  END IF;

  IF key_limit IS NOT NULL AND key_limit - key_total < account_limit - account_total THEN
    rate_limit := key_limit;
    rate_remaining := greatest(key_limit - key_total, 0);
    rate_reset := to_timestamp(coalesce(key_oldest, now_second) + 60);
  ELSE
    rate_limit := account_limit;
    rate_remaining := greatest(account_limit - account_total, 0);
    rate_reset := to_timestamp(coalesce(account_oldest, now_second) + 60);
  END IF;

  IF p_allowance = 'request' THEN
    request_limit := rate_limit;
    request_remaining := rate_remaining;
    request_reset := rate_reset;
  ELSE
    SELECT live.total, live.oldest INTO request_total, request_oldest
      FROM rate_windows w,
           LATERAL verbatim_window_at(w.counts, w.newest_second, greatest(w.newest_second, now_second)) live
     WHERE w.scope = 'request:' || found_key.account_id;
    request_limit := found_key.requests_per_minute;
    request_remaining := greatest(request_limit - coalesce(request_total, 0), 0);
    request_reset := to_timestamp(coalesce(request_oldest, now_second) + 60);
    IF found_key.key_requests_per_minute IS NOT NULL THEN
      request_total := NULL;
      request_oldest := NULL;
      SELECT live.total, live.oldest INTO request_total, request_oldest
        FROM rate_windows w,
             LATERAL verbatim_window_at(w.counts, w.newest_second, greatest(w.newest_second, now_second)) live
       WHERE w.scope = 'request:' || found_key.key_id;
      IF found_key.key_requests_per_minute - coalesce(request_total, 0) < request_remaining THEN
        request_limit := found_key.key_requests_per_minute;
        request_remaining := greatest(request_limit - coalesce(request_total, 0), 0);
        request_reset := to_timestamp(coalesce(request_oldest, now_second) + 60);
      END IF;
    END IF;
  END IF;

  account_id := found_key.account_id;
  key_id := found_key.key_id;
  plan := found_key.plan;
  credits := found_key.credits;
  RETURN NEXT;
END;
$$;
