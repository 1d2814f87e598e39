"""Certificate-verifying TLS for every connection lightsearch makes.

Scrapy's default context factory does not verify certificates; a search tool that cites
pages as evidence must. Trust comes from the platform store (and certifi's bundle when
installed); an extra CA, such as the offline origins' test CA, is trusted only when the
``LIGHT_TLS_CA_FILE`` setting names it.
"""

from __future__ import annotations

from typing import ClassVar

from twisted.internet._sslverify import IOpenSSLTrustRoot
from twisted.internet.ssl import optionsForClientTLS
from twisted.web.iweb import IPolicyForHTTPS
from zope.interface import implementer


@implementer(IOpenSSLTrustRoot)
class _TrustRoot:
    def __init__(self, extra_ca_file: str | None) -> None:
        self._extra = extra_ca_file

    def _addCACertsToContext(self, context) -> None:
        context.set_default_verify_paths()
        try:
            import certifi
        except ImportError:  # pragma: no cover - certifi ships with most installs
            pass
        else:
            context.load_verify_locations(certifi.where())
        if self._extra:
            context.load_verify_locations(self._extra)


@implementer(IPolicyForHTTPS)
class VerifyingPolicy:
    """Browser-like policy: hostname and chain are checked for every HTTPS connection."""

    _shared: ClassVar[dict[str | None, VerifyingPolicy]] = {}

    @classmethod
    def shared(cls, extra_ca_file: str | None = None) -> VerifyingPolicy:
        """One policy per trust configuration for the whole process, so every search
        reuses the TLS contexts already built."""
        if extra_ca_file not in cls._shared:
            cls._shared[extra_ca_file] = cls(extra_ca_file)
        return cls._shared[extra_ca_file]

    def __init__(self, extra_ca_file: str | None = None) -> None:
        self._trust = _TrustRoot(extra_ca_file)
        self._creators: dict[str, object] = {}

    def creatorForNetloc(self, hostname: bytes, port: int):
        # Building a context loads the whole CA bundle (~14 ms); one per host name is
        # reused for every connection to it (the context carries that name's check).
        name = hostname.decode("ascii")
        creator = self._creators.get(name)
        if creator is None:
            if len(self._creators) >= 512:
                self._creators.clear()
            creator = self._creators[name] = optionsForClientTLS(name, trustRoot=self._trust)
        return creator
