CREATE TABLE "dashboard_sign_in_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dashboard_sign_in_links" ADD CONSTRAINT "dashboard_sign_in_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_kind" CHECK ("api_keys"."kind" in ('api', 'session'));--> statement-breakpoint

-- Authenticates a key and, in the same round trip, admits the request against the exact
-- sliding 60-second window of its allowance ('request' or 'poll'): admitted when fewer than
-- `limit` hits of the window are younger than 60 seconds. The window rows of the account (and
-- of a key with a lower limit) are locked in that order for the statement, so API processes on
-- one database never admit more than the limit in any 60 seconds. It also answers the request
-- allowance, which `GET /me` shows while counting against the polling allowance. Since 0009 it
-- also records when the key was last used.
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
  window_start timestamptz := p_now - interval '60 seconds';
  account_scope text;
  key_scope text;
  account_limit integer;
  key_limit integer;
  account_hits timestamptz[];
  key_hits timestamptz[] := '{}';
  request_hits timestamptz[];
  request_key_hits timestamptz[];
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

  INSERT INTO rate_windows (scope, hits) VALUES (account_scope, '{}') ON CONFLICT DO NOTHING;
  SELECT verbatim_recent_hits(w.hits, window_start) INTO account_hits
    FROM rate_windows w WHERE w.scope = account_scope FOR UPDATE;
  IF key_limit IS NOT NULL THEN
    INSERT INTO rate_windows (scope, hits) VALUES (key_scope, '{}') ON CONFLICT DO NOTHING;
    SELECT verbatim_recent_hits(w.hits, window_start) INTO key_hits
      FROM rate_windows w WHERE w.scope = key_scope FOR UPDATE;
  END IF;

  admitted := cardinality(account_hits) < account_limit
              AND (key_limit IS NULL OR cardinality(key_hits) < key_limit);
  IF admitted THEN
    account_hits := account_hits || p_now;
    UPDATE rate_windows SET hits = account_hits WHERE scope = account_scope;
    IF key_limit IS NOT NULL THEN
      key_hits := key_hits || p_now;
      UPDATE rate_windows SET hits = key_hits WHERE scope = key_scope;
    END IF;
  END IF;

  IF key_limit IS NOT NULL AND key_limit - cardinality(key_hits) < account_limit - cardinality(account_hits) THEN
    rate_limit := key_limit;
    rate_remaining := greatest(key_limit - cardinality(key_hits), 0);
    rate_reset := coalesce(key_hits[1], p_now) + interval '60 seconds';
  ELSE
    rate_limit := account_limit;
    rate_remaining := greatest(account_limit - cardinality(account_hits), 0);
    rate_reset := coalesce(account_hits[1], p_now) + interval '60 seconds';
  END IF;

  IF p_allowance = 'request' THEN
    request_limit := rate_limit;
    request_remaining := rate_remaining;
    request_reset := rate_reset;
  ELSE
    SELECT verbatim_recent_hits(w.hits, window_start) INTO request_hits
      FROM rate_windows w WHERE w.scope = 'request:' || found_key.account_id;
    request_hits := coalesce(request_hits, '{}');
    request_limit := found_key.requests_per_minute;
    request_remaining := greatest(request_limit - cardinality(request_hits), 0);
    request_reset := coalesce(request_hits[1], p_now) + interval '60 seconds';
    IF found_key.key_requests_per_minute IS NOT NULL THEN
      SELECT verbatim_recent_hits(w.hits, window_start) INTO request_key_hits
        FROM rate_windows w WHERE w.scope = 'request:' || found_key.key_id;
      request_key_hits := coalesce(request_key_hits, '{}');
      IF found_key.key_requests_per_minute - cardinality(request_key_hits) < request_remaining THEN
        request_limit := found_key.key_requests_per_minute;
        request_remaining := greatest(request_limit - cardinality(request_key_hits), 0);
        request_reset := coalesce(request_key_hits[1], p_now) + interval '60 seconds';
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
