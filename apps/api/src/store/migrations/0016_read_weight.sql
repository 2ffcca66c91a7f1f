-- A request that weighs more than one request (docs/decisions.md, rule 6: the read of a large
-- library entry) counts the rest of its weight once it knows it, after `verbatim_authenticate`
-- admitted it as one.

-- The window with `p_requests` more requests admitted at `p_now`, counted in the bucket of its
-- second, as `verbatim_window_admit` counts one.
CREATE FUNCTION verbatim_window_add(p_counts integer[], p_latest timestamptz[], p_now timestamptz,
                                    p_requests integer, OUT counts integer[], OUT latest timestamptz[])
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  bucket integer := (floor(extract(epoch FROM p_now))::bigint % 61)::integer + 1;
BEGIN
  counts := p_counts;
  latest := p_latest;
  IF latest[bucket] > p_now - interval '60 seconds' THEN
    counts[bucket] := counts[bucket] + p_requests;
    latest[bucket] := greatest(latest[bucket], p_now);
  ELSE
    counts[bucket] := p_requests;
    latest[bucket] := p_now;
  END IF;
END;
$$;
--> statement-breakpoint

-- When `p_freed` of the requests a window counts at `p_now` have left it: buckets leave oldest
-- first, each when its latest request is 60 seconds old. Null when nothing needs to leave.
CREATE FUNCTION verbatim_window_frees(p_counts integer[], p_latest timestamptz[], p_now timestamptz, p_freed integer)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT min(last) + interval '60 seconds'
    FROM (SELECT last, sum(requests) OVER (ORDER BY last) AS leaving
            FROM unnest(p_counts, p_latest) AS bucket(requests, last)
           WHERE requests > 0 AND last > p_now - interval '60 seconds') ordered
   WHERE p_freed > 0 AND leaving >= p_freed
$$;
--> statement-breakpoint

-- Counts `p_requests` more requests of the key's admitted request against its allowance
-- ('request' or 'poll') at `p_now`, all or none: admitted when the account's window, and the
-- key's when it has a lower limit, have room for all of them. A weight never counts more than
-- the limit less the request already admitted, so the heaviest request stays possible, once a
-- minute. The window rows are locked in the order `verbatim_authenticate` locks them. Answers
-- the allowance after it, as `verbatim_authenticate` does, and when a refused weight would fit.
CREATE FUNCTION verbatim_admit_more(p_key_id text, p_allowance text, p_requests integer, p_now timestamptz)
RETURNS TABLE (
  admitted boolean,
  counted integer,
  rate_limit integer,
  rate_remaining integer,
  rate_reset timestamptz,
  fits_at timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  found_key record;
  account_scope text;
  key_scope text;
  account_limit integer;
  key_limit integer;
  weight integer;
  account_counts integer[];
  account_latest timestamptz[];
  account_used integer;
  account_frees_at timestamptz;
  key_counts integer[];
  key_latest timestamptz[];
  key_used integer := 0;
  key_frees_at timestamptz;
BEGIN
  SELECT k.account_id, k.requests_per_minute AS key_requests_per_minute, p.requests_per_minute, p.polls_per_minute
    INTO found_key
    FROM api_keys k
    JOIN accounts a ON a.id = k.account_id
    JOIN plans p ON p.name = a.plan
   WHERE k.id = p_key_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  PERFORM set_config('synchronous_commit', 'off', true);

  account_scope := p_allowance || ':' || found_key.account_id;
  IF p_allowance = 'poll' THEN
    account_limit := found_key.polls_per_minute;
  ELSE
    account_limit := found_key.requests_per_minute;
    key_limit := found_key.key_requests_per_minute;
    key_scope := 'request:' || p_key_id;
  END IF;
  weight := greatest(least(p_requests, least(account_limit, coalesce(key_limit, account_limit)) - 1), 0);

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

  admitted := account_used + weight <= account_limit AND (key_limit IS NULL OR key_used + weight <= key_limit);
  IF admitted AND weight > 0 THEN
    SELECT a.counts, a.latest INTO account_counts, account_latest
      FROM verbatim_window_add(account_counts, account_latest, p_now, weight) a;
    UPDATE rate_windows SET counts = account_counts, latest = account_latest WHERE scope = account_scope;
    SELECT u.used, u.frees_at INTO account_used, account_frees_at
      FROM verbatim_window_use(account_counts, account_latest, p_now) u;
    IF key_limit IS NOT NULL THEN
      SELECT a.counts, a.latest INTO key_counts, key_latest
        FROM verbatim_window_add(key_counts, key_latest, p_now, weight) a;
      UPDATE rate_windows SET counts = key_counts, latest = key_latest WHERE scope = key_scope;
      SELECT u.used, u.frees_at INTO key_used, key_frees_at
        FROM verbatim_window_use(key_counts, key_latest, p_now) u;
    END IF;
  END IF;
  counted := CASE WHEN admitted THEN weight ELSE 0 END;
  fits_at := CASE WHEN admitted THEN NULL ELSE greatest(
    verbatim_window_frees(account_counts, account_latest, p_now, account_used + weight - account_limit),
    CASE WHEN key_limit IS NULL THEN NULL
         ELSE verbatim_window_frees(key_counts, key_latest, p_now, key_used + weight - key_limit) END
  ) END;

  IF key_limit IS NOT NULL AND key_limit - key_used < account_limit - account_used THEN
    rate_limit := key_limit;
    rate_remaining := greatest(key_limit - key_used, 0);
    rate_reset := coalesce(key_frees_at, p_now + interval '60 seconds');
  ELSE
    rate_limit := account_limit;
    rate_remaining := greatest(account_limit - account_used, 0);
    rate_reset := coalesce(account_frees_at, p_now + interval '60 seconds');
  END IF;
  RETURN NEXT;
END;
$$;
