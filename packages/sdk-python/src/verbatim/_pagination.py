"""Lists read lazily across pages, following ``next_cursor``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping
from typing import Any, Callable, Generic, List, Optional, TypeVar, Union

from .generated.models import (
    LibraryEntry,
    LibraryHit,
    LibraryPageEnvelope,
    LibrarySearchPageEnvelope,
    ListRow,
    MonitorEvent,
    MonitorEventListEnvelope,
    VideoPageEnvelope,
)

Page = TypeVar("Page")
Item = TypeVar("Item")


class Paginator(Generic[Page, Item]):
    """``for item in paginator`` yields every item across pages; ``pages()`` yields the pages, with their usage.
    Nothing is fetched until it is iterated, and leaving the loop fetches no further page.
    """

    def __init__(
        self,
        fetch_page: Callable[[Optional[str]], Page],
        items_of: Callable[[Page], List[Item]],
        cursor_of: Callable[[Page], Optional[str]],
        first_cursor: Optional[str] = None,
    ) -> None:
        self._fetch_page = fetch_page
        self._items_of = items_of
        self._cursor_of = cursor_of
        self._first_cursor = first_cursor

    def pages(self) -> Iterator[Page]:
        cursor = self._first_cursor
        while True:
            page = self._fetch_page(cursor)
            yield page
            cursor = self._cursor_of(page)
            if cursor is None:
                return

    def __iter__(self) -> Iterator[Item]:
        for page in self.pages():
            yield from self._items_of(page)


class AsyncPaginator(Generic[Page, Item]):
    """``async for item in paginator`` yields every item across pages; ``pages()`` yields the pages."""

    def __init__(
        self,
        fetch_page: Callable[[Optional[str]], Awaitable[Page]],
        items_of: Callable[[Page], List[Item]],
        cursor_of: Callable[[Page], Optional[str]],
        first_cursor: Optional[str] = None,
    ) -> None:
        self._fetch_page = fetch_page
        self._items_of = items_of
        self._cursor_of = cursor_of
        self._first_cursor = first_cursor

    async def pages(self) -> AsyncIterator[Page]:
        cursor = self._first_cursor
        while True:
            page = await self._fetch_page(cursor)
            yield page
            cursor = self._cursor_of(page)
            if cursor is None:
                return

    async def __aiter__(self) -> AsyncIterator[Item]:
        async for page in self.pages():
            for item in self._items_of(page):
                yield item


def with_cursor(body: Mapping[str, Any], cursor: Optional[str]) -> Mapping[str, Any]:
    """A list request for the page at ``cursor``; the first page is asked without one."""
    return body if cursor is None else {**body, "cursor": cursor}


def rows_of(page: VideoPageEnvelope) -> List[ListRow]:
    return page.data.videos


def next_cursor_of(page: VideoPageEnvelope) -> Optional[str]:
    return page.data.next_cursor


def events_of(page: MonitorEventListEnvelope) -> List[MonitorEvent]:
    return page.data.events


def next_event_cursor_of(page: MonitorEventListEnvelope) -> Optional[str]:
    return page.data.next_cursor


def library_entries_of(page: LibraryPageEnvelope) -> List[LibraryEntry]:
    return page.data.entries


def library_hits_of(page: LibrarySearchPageEnvelope) -> List[LibraryHit]:
    return page.data.hits


def library_cursor_of(page: Union[LibraryPageEnvelope, LibrarySearchPageEnvelope]) -> Optional[str]:
    return page.data.next_cursor
