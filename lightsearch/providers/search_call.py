"""A search call's door: the call's keywords made one :class:`SearchRequest`, the kill switch
checked once, then the provider's own :meth:`SearchingProvider.search_request`.

Light, Brave and the engines take the same call (``query`` or ``queries``,
``max_results``, ``recency`` and the filters of :mod:`lightsearch.filters`); the
signature is written here once, and each provider implements only
``search_request(request)`` over the request object (plan/request.py). A provider that
calls another one (the engines' Light member) goes through :meth:`SearchingProvider.request`
and ``search_request``, not the door: the switch was checked at the outer call's door.
Below every surface, ``crawl/run.py`` checks it once more before any crawl starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lightsearch.config import check_door
from lightsearch.plan.request import SearchRequest, build_request
from lightsearch.providers.lifecycle import Provider


class SearchingProvider(Provider):
    """A provider with a search call; a subclass implements :meth:`search_request`."""

    #: the environment the kill switch reads (None: ``os.environ``)
    environ: Any = None

    async def search(
        self,
        query: str | Sequence[str] | None = None,
        *,
        queries: Sequence[str] | None = None,
        max_results: int | None = None,
        recency: str | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        region: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        """One search: ``include_domains``/``exclude_domains`` narrow what is searched (a
        domain outside it is a note), ``after``/``before`` drop hits dated outside them,
        ``region`` reaches the providers that search by region."""
        check_door(self.settings, self.environ)
        request = self.request(query, queries=queries, max_results=max_results, recency=recency,
                               include_domains=include_domains, exclude_domains=exclude_domains,
                               region=region, after=after, before=before)
        return await self.search_request(request)

    def request(self, query: str | Sequence[str] | None = None, *, max_results: int | None = None,
                **options: Any) -> SearchRequest:
        """The call as a request, within this provider's bounds (:meth:`request_bounds`);
        bad input is an ``invalid_input`` error naming the parameter."""
        bounds = self.request_bounds()
        default = bounds.pop("max_results", 8)
        return build_request(query, max_results=default if max_results is None else max_results,
                             **bounds, **options)

    def request_bounds(self) -> dict[str, Any]:
        """Keywords of :func:`~lightsearch.plan.request.build_request` this provider bounds a
        request with (its default ``max_results`` among them); the request's own defaults
        otherwise."""
        return {}

    async def search_request(self, request: SearchRequest) -> dict[str, Any]:
        """The result envelope for ``request``."""
        raise NotImplementedError
