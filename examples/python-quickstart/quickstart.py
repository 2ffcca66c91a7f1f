"""Checks that a Verbatim server answers and that a key is valid, prints the account's balance and
allowance and, given a video, the start of its transcript, through the Python SDK (``verbatim``)."""

from __future__ import annotations

import os
import sys
from typing import Callable, List, Optional

from verbatim import APIError, Verbatim, to_text
from verbatim.models import TranscriptEnvelope


def quickstart(verbatim: Verbatim, print_line: Callable[[str], None], video: Optional[str] = None) -> None:
    health = verbatim.health()
    print_line(f"{health.data.service} {health.data.version} is up at {verbatim.base_url}")

    account = verbatim.me().data
    print_line(f"account {account.user_id} on the {account.plan} plan")
    print_line(f"credits: {'unlimited' if account.credits is None else account.credits}")
    print_line(f"requests left this minute: {account.rate_limit.remaining} of {account.rate_limit.limit}")

    if video is not None:
        # wait=True follows a speech recognition job to its transcript, so both answers carry one.
        transcript = verbatim.transcripts.video(video, wait=True)
        segments = transcript.data.segments or []
        title = transcript.data.title if isinstance(transcript, TranscriptEnvelope) else transcript.data.video_id
        print_line(f"{title}: {len(segments)} segments, {transcript.usage.credits_spent} credit(s)")
        print_line(to_text(segments[:3], timestamps=True))


def main(argv: List[str]) -> int:
    if not os.environ.get("VERBATIM_API_KEY"):
        print("Set VERBATIM_API_KEY to a key (`pnpm start` prints one on its first run).", file=sys.stderr)
        return 2
    # The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
    with Verbatim() as verbatim:
        try:
            quickstart(verbatim, print, argv[0] if argv else None)
        except APIError as error:
            print(f"{error.code}: {error.message}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
