"""The OAuth endpoints as one small Starlette app, and the paths the HTTP guard lets through
without a bearer token (they are how a client gets one)."""

from __future__ import annotations

from mcp.server.auth.routes import (
    build_resource_metadata_url,
    create_auth_routes,
    create_protected_resource_routes,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.applications import Starlette
from starlette.routing import Route

from hoard.surfaces.oauth.consent import Consent
from hoard.surfaces.oauth.provider import OAUTH_SCOPES, HoardOAuth

ROOT_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"

_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))
"""Keeps ``http://host:port`` without a trailing slash: issuer comparison is exact (RFC 8414
§3.3, RFC 9207), and the ``iss`` the consent page sends back has none."""


def url(text: str) -> AnyHttpUrl:
    return _URL.validate_python(text)


def resource_metadata_url(oauth: HoardOAuth) -> str:
    return str(build_resource_metadata_url(url(oauth.resource)))


def oauth_app(oauth: HoardOAuth) -> tuple[Starlette, frozenset[str]]:
    """The Starlette app serving metadata, registration, authorization, token, revocation
    and consent, with the set of its paths."""
    issuer = url(oauth.issuer)
    scopes = list(OAUTH_SCOPES)
    routes: list[Route] = create_auth_routes(
        oauth,
        issuer,
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=scopes, default_scopes=scopes
        ),
        revocation_options=RevocationOptions(enabled=True),
    )
    resource_routes = create_protected_resource_routes(
        resource_url=url(oauth.resource),
        authorization_servers=[issuer],
        scopes_supported=scopes,
        resource_name="hoard",
    )
    routes += resource_routes
    # Some clients look for the metadata at the root rather than under the resource's path.
    first = resource_routes[0]
    routes.append(Route(ROOT_RESOURCE_METADATA, first.endpoint, methods=["GET", "OPTIONS"]))
    routes += Consent(oauth).routes()
    return Starlette(routes=routes), frozenset(r.path for r in routes)
