"""What the sync and async clients share about a live session's event stream: reading server-sent events, and
when to connect again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from pydantic import TypeAdapter

from .generated.models import LiveEvent

FINAL_TYPES = frozenset({"live.ended", "live.failed"})
"""The event types after which a session has nothing more to say."""

FIRST_RECONNECT_DELAY = 1.0
MAX_RECONNECT_DELAY = 30.0

_events: TypeAdapter[LiveEvent] = TypeAdapter(LiveEvent)


@dataclass
class ServerSentEvent:
    """One event as the wire carries it: its ``event`` name, its ``data`` lines joined, its ``id`` (or ``None``)."""

    event: str
    data: str
    id: Optional[str]


@dataclass
class EventStreamReader:
    """Turns lines of a ``text/event-stream`` body into events (WHATWG HTML, "Server-sent events"): comment lines
    (keep-alives) are skipped and an event without data is not dispatched.
    """

    _event: str = ""
    _data: List[str] = field(default_factory=list)
    _id: Optional[str] = None

    def feed(self, line: str) -> Optional[ServerSentEvent]:
        """The event a blank line completes, else ``None``."""
        if line == "":
            completed = (
                ServerSentEvent(self._event or "message", "\n".join(self._data), self._id) if self._data else None
            )
            self._event, self._data, self._id = "", [], None
            return completed
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        return None


def parse_event(message: ServerSentEvent) -> LiveEvent:
    """The model of an event's data."""
    return _events.validate_json(message.data)


def resume_headers(last_event_id: Optional[int]) -> Dict[str, str]:
    """The headers that resume a stream after an event."""
    return {
        "Accept": "text/event-stream",
        **({"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}),
    }


def next_delay(delay: float) -> float:
    """The wait before the next reconnection after another failure in a row."""
    return min(MAX_RECONNECT_DELAY, delay * 2)
