"""The owner's consent page for an OAuth client: ``/oauth/consent``.

The SDK's ``/authorize`` handler validates the request and hands it here (a pending request
in the OAuth store). The page names the client, the scopes it asks for and where it will be
sent back, and lets the vault owner choose a name for the new caller, its scopes and its
write mode, then allow or deny.

Who the owner is: with the web app (``HoardOAuth.owner`` set), the owner signed in there;
the page carries that session's CSRF token, and a signed-out visitor is sent to the web
sign-in and back. Without the web app, the page asks for an ``admin`` token instead.

Allowing creates that caller in the tokens file (with no static token anyone knows) and
sends the browser back to the client with a one-time code; denying sends it back with
``access_denied``. Every answer is ``no-store`` and refuses framing.
"""

from __future__ import annotations

import hmac
import re
import secrets
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import construct_redirect_uri
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.core.policy import WRITE_MODES
from hoard.surfaces.oauth import consent_page
from hoard.surfaces.oauth.consent_page import CONSENT_PATH, Form
from hoard.surfaces.oauth.provider import OAUTH_SCOPES, HoardOAuth

__all__ = ["CONSENT_PATH", "Consent"]


def _default_caller(client_name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", client_name.lower()).strip("-")[:24] or "client"
    return f"oauth-{slug}-{secrets.token_hex(2)}"


class Consent:
    def __init__(self, oauth: HoardOAuth) -> None:
        self.oauth = oauth

    def routes(self) -> list[Route]:
        return [Route(CONSENT_PATH, self.handle, methods=["GET", "POST"])]

    async def _pending(self, request_id: str) -> tuple[str, str, dict[str, Any]] | None:
        found = self.oauth.store.request(request_id)
        if found is None:
            return None
        client_id, params = found
        client = await self.oauth.get_client(client_id)
        if client is None:
            return None
        return client_id, client.client_name or client_id, params

    async def handle(self, request: Request) -> Response:
        if request.method == "GET":
            return await self._show(request)
        return await self._decide(request)

    async def _show(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        pending = await self._pending(request_id)
        if pending is None:
            return consent_page.gone()
        _, name, params = pending
        signed_in = self._owner(request)
        if self.oauth.owner is not None and signed_in is None:
            here = f"{CONSENT_PATH}?{urlencode({'request': request_id})}"
            if request.query_params.get("seen") != "1":
                return consent_page.checking(f"{here}&seen=1")
            return RedirectResponse(
                self.oauth.owner.signin_url(here), 303, headers=consent_page.headers()
            )
        asked = [s for s in params.get("scopes") or [] if isinstance(s, str)]
        form = Form(
            request_id=request_id,
            client=name,
            redirect=params["redirect_uri"],
            asked=asked,
            chosen=set(asked) & set(OAUTH_SCOPES) or {"read"},
            mode="propose",
            caller=_default_caller(name),
        )
        if signed_in is not None:
            form.who, form.csrf = signed_in
        return consent_page.render(form)

    def _owner(self, request: Request) -> tuple[str, str] | None:
        return None if self.oauth.owner is None else self.oauth.owner.owner(request.cookies)

    async def _decide(self, request: Request) -> Response:
        data = await request.form()
        field = {k: v for k, v in data.items() if isinstance(v, str)}
        request_id = field.get("request", "")
        pending = await self._pending(request_id)
        if pending is None:
            return consent_page.gone()
        client_id, name, params = pending
        form = self._chosen(request_id, name, params, data, field)
        problem = self._check_owner(request, form, field)
        if problem is not None:
            return problem
        state = params.get("state")
        if field.get("decision") != "allow":
            self.oauth.store.request(request_id, take=True)
            return _back(form.redirect, error="access_denied", state=state, iss=self.oauth.issuer)
        if not form.chosen or not form.chosen <= set(OAUTH_SCOPES) or form.mode not in WRITE_MODES:
            return consent_page.render(form, "Choose at least one scope and a write mode.", 400)
        try:
            entry, _unused_static_token = self.oauth.tokens.add(
                form.caller, ",".join(sorted(form.chosen)), form.mode, False, form.read, form.write
            )
        except HoardError as exc:
            return consent_page.render(form, exc.message, 400)
        if self.oauth.store.request(request_id, take=True) is None:  # answered meanwhile
            self.oauth.tokens.revoke(entry.name)
            return consent_page.gone()
        code = self.oauth.grant_code(client_id, params, entry.caller(), entry.sha256)
        return _back(form.redirect, code=code, state=state, iss=self.oauth.issuer)

    @staticmethod
    def _chosen(
        request_id: str, name: str, params: dict[str, Any], data: FormData, field: dict[str, str]
    ) -> Form:
        asked = [s for s in params.get("scopes") or [] if isinstance(s, str)]
        return Form(
            request_id=request_id,
            client=name,
            redirect=params["redirect_uri"],
            asked=asked,
            chosen={s for s in data.getlist("scopes") if isinstance(s, str)},
            mode=field.get("write_mode", "propose"),
            caller=field.get("caller", "").strip(),
            read=field.get("read", "").strip(),
            write=field.get("write", "").strip(),
        )

    def _check_owner(
        self, request: Request, form: Form, field: dict[str, str]
    ) -> HTMLResponse | None:
        """The answer comes from the owner: the signed-in session with its CSRF token (web
        app), or an ``admin`` token typed into the page (no web app). ``None`` when it does."""
        if self.oauth.owner is None:
            admin = self.oauth.tokens.verify(field.get("admin_token", "").strip())
            if admin is None or not admin.has("admin"):
                return consent_page.render(form, "That is not an admin token of this vault.", 403)
            return None
        signed_in = self._owner(request)
        if signed_in is None:
            return consent_page.refused("Sign in to this vault's web app first.", 401)
        form.who, form.csrf = signed_in
        presented = field.get("csrf", "").encode()
        if not hmac.compare_digest(presented, form.csrf.encode()):
            return consent_page.refused("Refused: the form's CSRF token is missing or wrong.", 403)
        return None


def _back(redirect: str, **params: str | None) -> RedirectResponse:
    return RedirectResponse(
        construct_redirect_uri(redirect, **params),
        status_code=303,
        headers=consent_page.headers(redirect),
    )
