-- Rate windows in 61 one-second buckets (docs/decisions.md, rule 6) instead of an array of every
-- admitted request's time, which an admission read, filtered and wrote back whole: its cost grew
-- with the limit. The requests of each window move into the buckets of their seconds.
ALTER TABLE "rate_windows" ADD COLUMN "counts" integer[] DEFAULT array_fill(0, array[61]) NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_windows" ADD COLUMN "latest" timestamp (6) with time zone[] DEFAULT array_fill('-infinity'::timestamptz, array[61]) NOT NULL;--> statement-breakpoint
UPDATE "rate_windows" AS w
   SET counts = b.counts, latest = b.latest
  FROM (
    SELECT r.scope,
           array_agg(s.requests ORDER BY i) AS counts,
           array_agg(coalesce(s.last, '-infinity'::timestamptz) ORDER BY i) AS latest
      FROM rate_windows r
     CROSS JOIN generate_series(0, 60) AS i
     CROSS JOIN LATERAL (
       SELECT count(*)::integer AS requests, max(hit) AS last
         FROM unnest(r.hits) AS hit
        WHERE (floor(extract(epoch FROM hit))::bigint % 61) = i
     ) s
     GROUP BY r.scope
  ) b
 WHERE w.scope = b.scope;
--> statement-breakpoint

-- The requests a window still counts at `p_now`, and when its oldest counted bucket leaves it:
-- a bucket counts until its latest request is 60 seconds old.
CREATE FUNCTION verbatim_window_use(p_counts integer[], p_latest timestamptz[], p_now timestamptz)
RETURNS TABLE (used integer, frees_at timestamptz)
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(sum(requests), 0)::integer, min(last) + interval '60 seconds'
    FROM unnest(p_counts, p_latest) AS bucket(requests, last)
   WHERE requests > 0 AND last > p_now - interval '60 seconds'
$$;
--> statement-breakpoint

-- The window with one more request admitted at `p_now`, counted in the bucket of its second. The
-- bucket of a second 61 seconds earlier has left the window by then, so it starts again at one.
CREATE FUNCTION verbatim_window_admit(p_counts integer[], p_latest timestamptz[], p_now timestamptz,
                                      OUT counts integer[], OUT latest timestamptz[])
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  bucket integer := (floor(extract(epoch FROM p_now))::bigint % 61)::integer + 1;
BEGIN
  counts := p_counts;
  latest := p_latest;
  IF latest[bucket] > p_now - interval '60 seconds' THEN
    counts[bucket] := counts[bucket] + 1;
    latest[bucket] := greatest(latest[bucket], p_now);
  ELSE
    counts[bucket] := 1;
    latest[bucket] := p_now;
  END IF;
END;
$$;
--> statement-breakpoint

-- Authenticates a key and, in the same round trip, admits the request against the sliding
-- 60-second window of its allowance ('request' or 'poll'): admitted when the window counts fewer
-- than `limit` requests. The window rows of the account (and of a key with a lower limit) are
-- locked in that order for the statement, so API processes on one database never admit more
-- than the limit in any 60 seconds. It also answers the request allowance, which `GET /me` shows
-- while counting against the polling allowance, and records when the key was last used.
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
  account_scope text;
  key_scope text;
  account_limit integer;
  key_limit integer;
  account_counts integer[];
  account_latest timestamptz[];
  account_used integer;
  account_frees_at timestamptz;
  key_counts integer[];
  key_latest timestamptz[];
  key_used integer := 0;
  key_frees_at timestamptz;
  request_used integer;
  request_frees_at timestamptz;
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

  -- Losing the last requests in a crash is harmless; holding the window's row lock through every
  -- admission's WAL flush is not.
  PERFORM set_config('synchronous_commit', 'off', true);

  -- What the dashboard shows as "last used": written at most once a minute per key.
  UPDATE api_keys SET last_used_at = date_trunc('minute', p_now)
   WHERE id = found_key.key_id
     AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', p_now));

  account_scope := p_allowance || ':' || found_key.account_id;
  IF p_allowance = 'poll' THEN
    account_limit := found_key.polls_per_minute;
  ELSE
    account_limit := found_key.requests_per_minute;
    key_limit := found_key.key_requests_per_minute;
    key_scope := 'request:' || found_key.key_id;
  END IF;

  -- Each row is locked before its buckets are read, so the admission counts what the last one wrote.
  INSERT INTO rate_windows (scope) VALUES (account_scope) ON CONFLICT DO NOTHING;
  SELECT w.counts, w.latest INTO account_counts, account_latest
    FROM rate_windows w WHERE w.scope = account_scope FOR UPDATE;
  SELECT u.used, u.frees_at INTO account_used, account_frees_at
    FROM verbatim_window_use(account_counts, account_latest, p_now) u;
  IF key_limit IS NOT NULL THEN
    INSERT INTO rate_windows (scope) VALUES (key_scope) ON CONFLICT DO NOTHING;
    SELECT w.counts, w.latest INTO key_counts, key_latest
      FROM rate_windows w WHERE w.scope = key_scope FOR UPDATE;
    SELECT u.used, u.frees_at INTO key_used, key_frees_at
      FROM verbatim_window_use(key_counts, key_latest, p_now) u;
  END IF;

  admitted := account_used < account_limit AND (key_limit IS NULL OR key_used < key_limit);
  IF admitted THEN
    SELECT a.counts, a.latest INTO account_counts, account_latest
      FROM verbatim_window_admit(account_counts, account_latest, p_now) a;
    UPDATE rate_windows SET counts = account_counts, latest = account_latest WHERE scope = account_scope;
    SELECT u.used, u.frees_at INTO account_used, account_frees_at
      FROM verbatim_window_use(account_counts, account_latest, p_now) u;
    IF key_limit IS NOT NULL THEN
      SELECT a.counts, a.latest INTO key_counts, key_latest
        FROM verbatim_window_admit(key_counts, key_latest, p_now) a;
      UPDATE rate_windows SET counts = key_counts, latest = key_latest WHERE scope = key_scope;
      SELECT u.used, u.frees_at INTO key_used, key_frees_at
        FROM verbatim_window_use(key_counts, key_latest, p_now) u;
    END IF;
  END IF;

  IF key_limit IS NOT NULL AND key_limit - key_used < account_limit - account_used THEN
    rate_limit := key_limit;
    rate_remaining := greatest(key_limit - key_used, 0);
    rate_reset := coalesce(key_frees_at, p_now + interval '60 seconds');
  ELSE
    rate_limit := account_limit;
    rate_remaining := greatest(account_limit - account_used, 0);
    rate_reset := coalesce(account_frees_at, p_now + interval '60 seconds');
  END IF;

  IF p_allowance = 'request' THEN
    request_limit := rate_limit;
    request_remaining := rate_remaining;
    request_reset := rate_reset;
  ELSE
    SELECT u.used, u.frees_at INTO request_used, request_frees_at
      FROM rate_windows w, verbatim_window_use(w.counts, w.latest, p_now) u
     WHERE w.scope = 'request:' || found_key.account_id;
    request_limit := found_key.requests_per_minute;
    request_remaining := greatest(request_limit - coalesce(request_used, 0), 0);
    request_reset := coalesce(request_frees_at, p_now + interval '60 seconds');
    IF found_key.key_requests_per_minute IS NOT NULL THEN
      SELECT u.used, u.frees_at INTO request_used, request_frees_at
        FROM rate_windows w, verbatim_window_use(w.counts, w.latest, p_now) u
       WHERE w.scope = 'request:' || found_key.key_id;
      IF found_key.key_requests_per_minute - coalesce(request_used, 0) < request_remaining THEN
        request_limit := found_key.key_requests_per_minute;
        request_remaining := greatest(request_limit - coalesce(request_used, 0), 0);
        request_reset := coalesce(request_frees_at, p_now + interval '60 seconds');
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
--> statement-breakpoint
DROP FUNCTION verbatim_recent_hits(timestamptz[], timestamptz);--> statement-breakpoint
ALTER TABLE "rate_windows" DROP COLUMN "hits";
