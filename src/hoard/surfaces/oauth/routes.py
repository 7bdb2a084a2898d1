"""The OAuth endpoints as one small Starlette app, and the paths the HTTP guard lets through
without a bearer token (they are how a client gets one).

The SDK's handlers serve all but ``/revoke``, which is hoard's own (RFC 7009 for every client
hoard registers): the client is identified by ``client_id``, its secret checked only when it
was registered with one (a public client, ``token_endpoint_auth_method: none``, has none to
send); an unknown token answers 200; a token issued to another client is refused with
``invalid_grant`` and stays valid.
"""

from __future__ import annotations

from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.routes import (
    REVOCATION_PATH,
    build_metadata,
    build_resource_metadata_url,
    cors_middleware,
    create_auth_routes,
    create_protected_resource_routes,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    RequestBodyLimitMiddleware,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, request_response

from hoard.app.oauth_grants import Revocation, revoke_for_client
from hoard.surfaces.oauth.consent import Consent
from hoard.surfaces.oauth.provider import OAUTH_SCOPES, HoardOAuth

ROOT_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
METADATA_PATH = "/.well-known/oauth-authorization-server"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))
"""Keeps ``http://host:port`` without a trailing slash: issuer comparison is exact (RFC 8414
§3.3, RFC 9207), and the ``iss`` the consent page sends back has none."""


def url(text: str) -> AnyHttpUrl:
    return _URL.validate_python(text)


def resource_metadata_url(oauth: HoardOAuth) -> str:
    return str(build_resource_metadata_url(url(oauth.resource)))


def _error(status: int, error: str, description: str) -> Response:
    body = {"error": error, "error_description": description}
    return JSONResponse(body, status_code=status, headers=NO_STORE)


class Revoke:
    """``POST /revoke`` (RFC 7009 §2)."""

    def __init__(self, oauth: HoardOAuth) -> None:
        self.oauth = oauth
        self.clients = ClientAuthenticator(oauth)

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.clients.authenticate_request(request)
        except AuthenticationError as e:
            return _error(401, "invalid_client", e.message)
        token = (await request.form()).get("token")
        if not isinstance(token, str) or not token:
            return _error(400, "invalid_request", "the token to revoke is missing")
        outcome = revoke_for_client(self.oauth.store, str(client.client_id), token)
        if outcome is Revocation.OTHER_CLIENT:
            return _error(400, "invalid_grant", "this token was not issued to this client")
        return Response(status_code=200, headers=NO_STORE)


def _own_routes(oauth: HoardOAuth, routes: list[Route], options: ClientRegistrationOptions) -> None:
    """Put hoard's ``/revoke`` in place of the SDK's, and say in the metadata that a public
    client may call it."""
    revocation = RevocationOptions(enabled=True)
    metadata = build_metadata(url(oauth.issuer), None, options, revocation)
    metadata.revocation_endpoint_auth_methods_supported = [
        "client_secret_post",
        "client_secret_basic",
        "none",
    ]
    methods = ["POST", "OPTIONS"]
    limited = RequestBodyLimitMiddleware(
        request_response(Revoke(oauth).handle), DEFAULT_MAX_REQUEST_BODY_SIZE
    )
    # CORS outermost, so a refusal of an inner layer (a 413) still carries its headers.
    revoke = CORSMiddleware(
        limited,
        allow_origins="*",
        allow_methods=methods,
        allow_headers=[MCP_PROTOCOL_VERSION_HEADER],
    )
    for i, route in enumerate(routes):
        if route.path == REVOCATION_PATH:
            routes[i] = Route(REVOCATION_PATH, revoke, methods=methods)
        elif route.path == METADATA_PATH:
            handler = cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])
            routes[i] = Route(METADATA_PATH, handler, methods=["GET", "OPTIONS"])


def oauth_app(oauth: HoardOAuth) -> tuple[Starlette, frozenset[str]]:
    """The Starlette app serving metadata, registration, authorization, token, revocation
    and consent, with the set of its paths."""
    issuer = url(oauth.issuer)
    scopes = list(OAUTH_SCOPES)
    registration = ClientRegistrationOptions(
        enabled=True, valid_scopes=scopes, default_scopes=scopes
    )
    routes: list[Route] = create_auth_routes(
        oauth,
        issuer,
        client_registration_options=registration,
        revocation_options=RevocationOptions(enabled=True),
    )
    _own_routes(oauth, routes, registration)
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
