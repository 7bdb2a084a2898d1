"""The owner's consent page for an OAuth client: ``/oauth/consent``.

The SDK's ``/authorize`` handler validates the request and hands it here (a pending request
in the OAuth store). The page names the client and where it will be sent back, and asks the
vault owner for an ``admin`` token, a name for the new caller, its scopes and its write
mode. Allowing creates that caller in the tokens file (with no static token anyone knows)
and sends the browser back to the client with a one-time code; denying sends it back with
``access_denied``. Every answer is ``no-store`` and refuses framing.
"""

from __future__ import annotations

import html
import re
import secrets
from typing import Any

from mcp.server.auth.provider import construct_redirect_uri
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from hoard.core.errors import HoardError
from hoard.core.policy import WRITE_MODES
from hoard.surfaces.oauth.provider import OAUTH_SCOPES, HoardOAuth

CONSENT_PATH = "/oauth/consent"
NO_STORE = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hoard: connect {client}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.4rem 0}}input[type=text],input[type=password]{{width:100%}}
.error{{color:#a00}}fieldset{{margin:1rem 0}}</style></head>
<body><h1>Connect {client} to this vault?</h1>
<p><b>{client}</b> asks to use hoard as a caller. After you allow it, it is sent back to
<code>{redirect}</code>.</p>
{error}
<form method="post" action="{action}">
<input type="hidden" name="request" value="{request}">
<label>An <code>admin</code> token of this vault (from <code>hoard token add NAME --scopes
admin</code>)<input type="password" name="admin_token" autocomplete="off" required></label>
<label>Name of the new caller<input type="text" name="caller" value="{caller}" required></label>
<fieldset><legend>What it may do</legend>{scopes}</fieldset>
<fieldset><legend>Writes</legend>{modes}</fieldset>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>
"""


def _page(
    request_id: str,
    client: str,
    redirect: str,
    chosen: set[str],
    mode: str,
    caller: str,
    error: str = "",
    status: int = 200,
) -> HTMLResponse:
    e = html.escape
    scopes = "".join(
        f'<label><input type="checkbox" name="scopes" value="{s}"'
        f"{' checked' if s in chosen else ''}> {s}</label>"
        for s in OAUTH_SCOPES
    )
    modes = "".join(
        f'<label><input type="radio" name="write_mode" value="{m}"'
        f"{' checked' if m == mode else ''}> {m}"
        f"{' (writes become proposals you confirm)' if m == 'propose' else ''}</label>"
        for m in WRITE_MODES
    )
    body = PAGE.format(
        client=e(client),
        redirect=e(redirect),
        action=CONSENT_PATH,
        request=e(request_id),
        caller=e(caller),
        scopes=scopes,
        modes=modes,
        error=f'<p class="error">{e(error)}</p>' if error else "",
    )
    return HTMLResponse(body, status_code=status, headers=NO_STORE)


def _gone() -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><title>hoard</title><p>This authorization request is unknown or has "
        "expired. Start again from the client.</p>",
        status_code=400,
        headers=NO_STORE,
    )


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
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request_id)
            if pending is None:
                return _gone()
            _, name, params = pending
            asked = set(params.get("scopes") or []) & set(OAUTH_SCOPES) or {"read"}
            return _page(
                request_id, name, params["redirect_uri"], asked, "propose", _default_caller(name)
            )
        return await self._decide(request)

    async def _decide(self, request: Request) -> Response:
        form = await request.form()
        field = {k: v for k, v in form.items() if isinstance(v, str)}
        request_id = field.get("request", "")
        pending = await self._pending(request_id)
        if pending is None:
            return _gone()
        client_id, name, params = pending
        state = params.get("state")
        redirect = params["redirect_uri"]
        if field.get("decision") != "allow":
            self.oauth.store.request(request_id, take=True)
            return _back(redirect, error="access_denied", state=state, iss=self.oauth.issuer)
        scopes = {s for s in form.getlist("scopes") if isinstance(s, str)}
        mode = field.get("write_mode", "propose")
        caller = field.get("caller", "").strip()

        def again(error: str, status: int) -> HTMLResponse:
            return _page(request_id, name, redirect, scopes, mode, caller, error, status)

        admin = self.oauth.tokens.verify(field.get("admin_token", "").strip())
        if admin is None or not admin.has("admin"):
            return again("That is not an admin token of this vault.", 403)
        if not scopes or not scopes <= set(OAUTH_SCOPES) or mode not in WRITE_MODES:
            return again("Choose at least one scope and a write mode.", 400)
        try:
            entry, _unused_static_token = self.oauth.tokens.add(caller, ",".join(scopes), mode)
        except HoardError as exc:
            return again(exc.message, 400)
        if self.oauth.store.request(request_id, take=True) is None:  # answered meanwhile
            self.oauth.tokens.revoke(entry.name)
            return _gone()
        code = self.oauth.grant_code(client_id, params, entry.caller(), entry.sha256)
        return _back(redirect, code=code, state=state, iss=self.oauth.issuer)


def _back(redirect: str, **params: str | None) -> RedirectResponse:
    return RedirectResponse(
        construct_redirect_uri(redirect, **params), status_code=303, headers=NO_STORE
    )
