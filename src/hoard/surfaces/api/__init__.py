"""The plain JSON API at ``/api/v1``: every operation of the MCP tools over HTTP, with the
same arguments, result objects, gates, errors and ledger.

Routes are split by group (notes, search/list, proposals, access/admin, claims/synthesis,
read-code); each is an :class:`~hoard.surfaces.api.framework.Op` in one table that builds both
the Starlette routes and the OpenAPI document. Authentication is not done here: the HTTP guard
(:mod:`hoard.surfaces.http`) resolves the caller and puts it in the ASGI scope.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from hoard.app.admin import TokenAdmin
from hoard.app.hoard import Hoard
from hoard.surfaces.api.admin import access_ops
from hoard.surfaces.api.code import code_ops
from hoard.surfaces.api.errors import no_route
from hoard.surfaces.api.framework import NO_STORE, Op, endpoint, json_bytes
from hoard.surfaces.api.honesty import honesty_ops
from hoard.surfaces.api.notes import API_PREFIX, note_ops
from hoard.surfaces.api.openapi import openapi_document
from hoard.surfaces.api.orient import orient_ops
from hoard.surfaces.api.proposals import proposal_ops
from hoard.surfaces.api.reading import reading_ops
from hoard.surfaces.api.sync import sync_ops

__all__ = ["API_PREFIX", "all_ops", "build_api"]


def all_ops(hoard: Hoard, tokens: TokenAdmin) -> list[Op]:
    return [
        *reading_ops(hoard),
        *note_ops(hoard),
        *proposal_ops(hoard),
        *access_ops(hoard, tokens),
        *honesty_ops(hoard),
        *code_ops(hoard),
        *orient_ops(hoard),
        *sync_ops(hoard),
    ]


def build_api(hoard: Hoard, tokens: TokenAdmin) -> Starlette:
    """The API's Starlette app, to mount at :data:`API_PREFIX` behind the HTTP guard."""
    ops = all_ops(hoard, tokens)
    document: list[bytes] = []

    async def openapi(request: Request) -> Response:
        if not document:
            document.append(json_bytes(openapi_document(ops, API_PREFIX)))
        return Response(document[0], headers=NO_STORE, media_type="application/json")

    routes: list[Any] = [Route("/openapi.json", openapi, methods=["GET"])]
    routes += [Route(op.route_path, endpoint(op), methods=[op.method]) for op in ops]
    return Starlette(routes=routes, exception_handlers={404: no_route, 405: no_route})
