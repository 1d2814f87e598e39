"""Sites on a person's own machine or network, which that person added on purpose.

The transport guard refuses private, loopback, link-local and internal destinations, and
ports outside ``LIGHT_ALLOWED_PORTS``, whoever asks: a URL may come from a model, a page
or a redirect. The one exception is a site a person adds themselves with ``lightsearch
sources add --allow-private URL`` (a notes server on ``127.0.0.1:8080``, an intranet
wiki). The opt-in is stored with that source's entry in the user catalog
(``"allowPrivate": true``) and covers exactly that source's origins (scheme, host and
port), nothing wider:

- only a crawl that was given the source carries its origins (through its frontier,
  :attr:`lightsearch.plan.frontier.Frontier.private_origins`): a Light search whose plan
  selected it, the probe of ``sources add``/``check``. web_fetch, the engines and
  Brave never do, so no URL from a tool call, a page or a model reaches such a site;
- only the user catalog may carry the flag (the bundled catalog, or one given with
  ``LIGHT_CATALOG``, is refused with it: plan/catalog.py);
- it lifts only the refusals a person's own sites meet (:data:`LIFTED`): cloud metadata
  services, multicast, broadcast, reserved and unspecified addresses, IPv4 carried in
  IPv6, and the metadata host names stay refused whatever the flag says.

The guard (:func:`~lightsearch.crawl.guard.urls.check_url` and the transport's choice
among resolved addresses) stays the one judge; it is handed the origins and asks
:func:`lifts`. Anything that will ever read a private site takes its origins from the
user's catalog entries, never from a call's arguments.
"""

from __future__ import annotations

#: The guard's refusal reasons an opt-in lifts for its own origins (an address's class from
#: :func:`~lightsearch.crawl.guard.addresses.classify`, a name's, or the port rule).
LIFTED = frozenset({"loopback", "private", "unique-local", "link-local", "shared-cgnat", "internal-name", "port"})


def lifts(reason: str) -> bool:
    """Whether a user's opt-in for an origin lifts a refusal with this reason."""
    return reason in LIFTED
