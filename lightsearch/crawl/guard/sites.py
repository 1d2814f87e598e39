"""May a site a call names be probed on the spot? The guard's answer before any hop.

A call's ``includeDomains`` is tool input. A domain the catalog does not hold becomes a
source for that search only (plan/adhoc.py), read at ``https://DOMAIN/`` and
``https://www.DOMAIN/``. Before a single request is made for it:

* its home page URL is checked as the guard checks any URL, with no host trusted: an
  address that is not public (``10.0.0.1``, ``169.254.169.254``), a name that means this
  machine or its network (``localhost``, ``*.internal``, a single label) is refused;
* a host the configuration maps (``LIGHT_HOST_MAP``: the offline origins, a test's
  loopback server) is refused unless ``LIGHT_ADHOC_MAPPED_HOSTS`` names it: the map is
  how configuration stands loopback servers in for catalog sites, never a way for a
  call to reach them;
* in an offline world (``LIGHT_HOST_MAP_ONLY``) a host the map does not name is not
  there at all.

Everything else is decided where every hop is decided, in the download handler: the
name is resolved and every answer must be public (the site's robots.txt is its first
hop), and a search that probes a site uses the host map only for the hosts its plan
names (plan/frontier.py, ``may_map``), so neither a redirect nor anything the site
publishes leads into a mapped host.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from lightsearch.crawl.failures import CodedRefusal, HostNotMappedError
from lightsearch.crawl.guard import BlockedAddress
from lightsearch.crawl.guard.urls import DEFAULT_ALLOWED_PORTS, check_url


def vet_site(domain: str, *, host_map: Mapping[str, Any], map_only: bool, mapped_allowed: Collection[str],
             allowed_ports: Collection[int] = DEFAULT_ALLOWED_PORTS) -> CodedRefusal | None:
    """Why ``domain`` (normalised, lower case) may not be probed, or None when it may."""
    url = f"https://{domain}/"
    try:
        check_url(url, allowed_ports=allowed_ports, trusted_hosts=())
    except CodedRefusal as refusal:
        return refusal
    mapped = {h.lower().rstrip(".") for h in host_map}
    if domain in mapped and domain not in mapped_allowed:
        return BlockedAddress(f"host {domain} is reached only through LIGHT_HOST_MAP (configuration); a call may "
                              "not probe it (LIGHT_ADHOC_MAPPED_HOSTS)", reason="host-mapped", url=url)
    if map_only and domain not in mapped:
        return HostNotMappedError(f"host {domain} is not in LIGHT_HOST_MAP (an offline world)")
    return None
