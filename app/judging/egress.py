"""Where a judge may be reached: the one rule for judge URLs (SSRF), at saving and at connecting.

A judge's `base_url` makes this server send requests, with a provider key, to an address someone
chose. The rule, by the addresses a host name resolves to:
- link-local (169.254.0.0/16, fe80::/10), cloud metadata (fd00:ec2::254, 100.100.100.200) and
  unspecified or multicast addresses are never reached;
- loopback and other non-public addresses (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10, ...)
  only when the operator allowed them (`FAIRPAIR_JUDGE_HOSTS_ALLOW`: CIDRs and host names), or
  for a trusted judge (the judges file, which the operator wrote);
- every other address is public and reached.
Decimal, hex or IPv4-mapped spellings of an address resolve to the address and are judged as it;
so are the IPv6 addresses that carry an IPv4 one to reach (IPv4-compatible ::/96, IPv4-translated
::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). Site-local fec0::/10 and local-use NAT64
64:ff9b:1::/48 are private. A URL the client would not parse, or whose host is neither an address
nor a DNS name (letters, digits, `-`, `_`; labels of 1 to 63, 253 in all), is refused outright.
The check runs when a judge is saved (its URL) and again inside every connection a judge opens
(`LeanWire` in app/judging/providers/wire.py): the client connects to an address it has just
checked, so a name that resolves elsewhere after saving (DNS rebinding) reaches nothing
forbidden. Environment proxies are never used: a proxy would connect on our behalf, past the
check. The operator's own proxy (`FAIRPAIR_JUDGE_PROXY`, `JudgeProxy`) carries connections the
policy has checked: the client asks it to CONNECT to the checked address, so the proxy resolves
nothing for an API-posted judge; a trusted judge's tunnel names its host (a proxy's allow-list
is usually by name, and the operator chose both).

A judge URL carries no query (app/judges/schemas.py). The one request that has one is Azure
OpenAI's (`azure_path`): its `deployment` and `api_version` are fields of their own, each held
to a pattern that admits no `/`, `?`, `&`, `%`, `#` or `..`, and the client adds exactly one
query parameter, `api-version`; nothing a judge definition says reaches another path or query.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace

import httpx2

from app.proxies import JudgeProxy

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[Address]]]
ALLOW_SETTING = "FAIRPAIR_JUDGE_HOSTS_ALLOW"

NEVER = tuple(
    ipaddress.ip_network(net)
    for net in (
        "169.254.0.0/16",  # link-local, where AWS, GCP and Azure serve instance metadata
        "fe80::/10",
        "fd00:ec2::254/128",  # AWS metadata over IPv6
        "100.100.100.200/32",  # Alibaba Cloud metadata
        "0.0.0.0/8",  # "this host": Linux connects it to loopback
    )
)
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
# IPv6 prefixes whose last 32 bits are the IPv4 address a packet ends up at (6to4 is apart:
# its IPv4 address follows the prefix). `::` and `::1` are in ::/96 but are themselves.
EMBEDS_IPV4 = tuple(
    ipaddress.IPv6Network(net)
    for net in ("::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96")
)
# Python calls these global; they are not reachable from the internet.
NOT_PUBLIC = (ipaddress.IPv6Network("fec0::/10"), ipaddress.IPv6Network("64:ff9b:1::/48"))


class EgressRefused(ValueError):
    """A judge URL or address the policy does not allow; the message says why and what to set."""


# Azure's deployment names: letters, digits, `-`, `_` and `.`, at most 64 characters. A name of
# dots only (`.`, `..`) would be a relative path segment: refused. Plain character checks, no
# regular expression (tests/security/test_regex_linear.py).
AZURE_DEPLOYMENT_CHARS = frozenset("-_.")
AZURE_DEPLOYMENT_RULE = "letters, digits, '-', '_' and '.' (not only dots), at most 64"
# Azure OpenAI's API versions: a date, maybe `-preview` (2024-10-21, 2025-04-01-preview).
AZURE_API_VERSION_RULE = "a date like 2024-10-21, maybe with -preview"


def azure_deployment_refusal(deployment: str) -> str | None:
    """Why `deployment` may not name an Azure OpenAI deployment in a request path, or None."""
    fits = (
        0 < len(deployment) <= 64
        and deployment.isascii()
        and all(c.isalnum() or c in AZURE_DEPLOYMENT_CHARS for c in deployment)
        and deployment.strip(".") != ""
    )
    return None if fits else f"an Azure deployment name is {AZURE_DEPLOYMENT_RULE} characters"


def azure_api_version_refusal(api_version: str) -> str | None:
    """Why `api_version` may not be sent as Azure's `api-version` query parameter, or None."""
    date = api_version.removesuffix("-preview")
    parts = date.split("-")
    fits = (
        date.isascii()
        and [len(part) for part in parts] == [4, 2, 2]
        and all(part.isdigit() for part in parts)
    )
    return None if fits else f"an Azure api_version is {AZURE_API_VERSION_RULE}"


def azure_path(deployment: str, api_version: str) -> str:
    """The path and query of an Azure OpenAI chat completion (after the resource URL):
    `/openai/deployments/{deployment}/chat/completions?api-version={api_version}`, the only query
    a judge request carries; EgressRefused when either part is not what Azure names."""
    refusal = azure_deployment_refusal(deployment) or azure_api_version_refusal(api_version)
    if refusal is not None:
        raise EgressRefused(refusal)
    return f"/openai/deployments/{deployment}/chat/completions?api-version={api_version}"


async def system_resolver(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to, as the operating system resolves it."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def canonical(address: Address) -> Address:
    """The IPv4 address an IPv6 one embeds (mapped, compatible, translated, NAT64, 6to4); any
    other address as it is."""
    if not isinstance(address, ipaddress.IPv6Address) or address.scope_id is not None:
        return address
    if address.sixtofour is not None:
        return address.sixtofour
    if int(address) > 1 and any(address in net for net in EMBEDS_IPV4):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def is_public(address: Address) -> bool:
    """Globally reachable: Python's `is_global`, less the IPv6 ranges it still calls global."""
    return address.is_global and not any(address in net for net in NOT_PUBLIC)


def is_dns_name(host: str) -> bool:
    """Letters, digits, `-` and `_` in dot-separated labels of 1 to 63, at most 253 in all (a
    trailing dot allowed): what a resolver takes without an error of its own."""
    labels = host.removesuffix(".").split(".")
    return len(host) <= 253 and all(
        0 < len(label) <= 63
        and label.isascii()
        and label.replace("-", "").replace("_", "").isalnum()
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )


def parse_url(url: str) -> httpx2.URL:
    """`url` as the judges' client parses it; EgressRefused when it cannot, or when its host is
    neither an IP address nor a DNS name (a tab, a percent sign, an octal quad, `[::1]x`)."""
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise EgressRefused(f"not a valid URL: {exc}") from None
    host = parsed.raw_host.decode("ascii", "replace")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not is_dns_name(host):
            raise EgressRefused(f"not a valid host name: {host!r}") from None
    return parsed


@dataclass(frozen=True)
class EgressPolicy:
    """Which addresses a judge's requests may reach, and the proxy that carries them."""

    allowed_networks: tuple[Network, ...] = ()
    allowed_hosts: frozenset[str] = frozenset()
    # The judges file's judges: non-public addresses allowed, the NEVER list still refused.
    trusted: bool = False
    resolver: Resolver = field(default=system_resolver, compare=False)
    proxy: JudgeProxy | None = None

    @classmethod
    def parse(
        cls,
        allow: Iterable[str],
        *,
        resolver: Resolver = system_resolver,
        proxy: JudgeProxy | None = None,
    ) -> EgressPolicy:
        """A policy from `FAIRPAIR_JUDGE_HOSTS_ALLOW` entries (CIDRs, addresses, host names)."""
        networks: list[Network] = []
        hosts: set[str] = set()
        for entry in allow:
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(tuple(networks), frozenset(hosts), resolver=resolver, proxy=proxy)

    def trusting(self) -> EgressPolicy:
        """This policy for a judge the operator configured (the judges file)."""
        return replace(self, trusted=True)

    def tunnel_target(self, host: str, address: Address | None) -> str:
        """What a CONNECT through the proxy names for `host` at its checked `address`: the
        address itself (the proxy resolves nothing it could resolve elsewhere), or for a trusted
        judge the host name (proxies allow by name; the operator chose both)."""
        if self.trusted or address is None:
            return f"[{host}]" if ":" in host else host
        return f"[{address}]" if address.version == 6 else str(address)

    def refusal(self, host: str, address: Address) -> str | None:
        """Why `address` (which `host` resolved to) may not be reached, or None."""
        address = canonical(address)
        if address.is_unspecified or address.is_multicast or any(address in n for n in NEVER):
            return f"{host} resolves to {address}, a link-local, metadata or unroutable address"
        if is_public(address) or self.trusted or host.lower().rstrip(".") in self.allowed_hosts:
            return None
        if any(address in network for network in self.allowed_networks):
            return None
        kind = "loopback" if any(address in n for n in LOOPBACK) else "private"
        return (
            f"{host} resolves to {address}, a {kind} address; allow it with {ALLOW_SETTING} "
            "(CIDRs and host names, comma-separated)"
        )

    async def addresses(self, host: str, port: int) -> list[Address]:
        """The addresses of `host` that may be reached, in resolver order; EgressRefused if any
        address is refused (a name that also points somewhere forbidden is not half-trusted)."""
        try:
            literal: list[Address] = [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            literal = []
        resolved = literal or await self.resolver(host, port)
        for address in resolved:
            if (reason := self.refusal(host, address)) is not None:
                raise EgressRefused(reason)
        return resolved

    async def check_url(self, url: str) -> None:
        """Refuse a judge URL whose host resolves to a forbidden address.

        A host that does not resolve now is accepted: every connection is checked again.
        """
        parsed = parse_url(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        try:
            await self.addresses(parsed.host, port)
        except OSError:  # no such name (yet): the connection-time check still guards it
            return
