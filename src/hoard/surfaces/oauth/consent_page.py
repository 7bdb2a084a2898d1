"""The HTML of the consent page (self-contained: no script, one inline stylesheet) and its
headers. Two forms of it: for the web app's signed-in owner (a CSRF token of the session),
or, when the server has no web app, a field asking for an ``admin`` token."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from hoard.core.policy import WRITE_MODES
from hoard.surfaces.oauth.provider import OAUTH_SCOPES

CONSENT_PATH = "/oauth/consent"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hoard: connect {client}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.4rem 0}}input[type=text],input[type=password]{{width:100%}}
.error{{color:#a00}}fieldset{{margin:1rem 0}}code{{overflow-wrap:anywhere}}</style></head>
<body><h1>Connect {client} to this vault?</h1>
<p><b id="client">{client}</b> asks to use hoard as a caller, with the scopes
<b id="asked">{asked}</b>. After you answer, your browser is sent back to
<code id="redirect">{redirect}</code>.</p>
{error}
<form method="post" action="{action}">
<input type="hidden" name="request" value="{request}">
{auth}
<label>Name of the new caller<input type="text" id="caller" name="caller" value="{caller}"
required></label>
<fieldset><legend>What it may do</legend>{scopes}</fieldset>
<fieldset><legend>Writes</legend>{modes}</fieldset>
<label>Folders it may read (comma-separated globs such as <code>team/**</code>; empty: the
whole vault)<input type="text" id="read" name="read" value="{read}"></label>
<label>Folders it may write (within those it reads; empty: all it reads)<input type="text"
id="write" name="write" value="{write}"></label>
<button type="submit" id="allow" name="decision" value="allow">Allow</button>
<button type="submit" id="deny" name="decision" value="deny">Deny</button>
</form></body></html>
"""

ADMIN_FIELD = """<label>An <code>admin</code> token of this vault (from <code>hoard token add
NAME --scopes admin</code>)<input type="password" name="admin_token" autocomplete="off"
required></label>"""

SESSION_FIELD = """<input type="hidden" name="csrf" value="{csrf}">
<p>Signed in to this vault's web app as <b id="who">{who}</b>.</p>"""

CHECKING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hoard: connect</title>
<meta http-equiv="refresh" content="0; url={again}"></head>
<body><p>Checking that you are signed in… <a href="{again}">continue</a></p></body></html>
"""


def headers(redirect: str | None = None) -> dict[str, str]:
    """``no-store``, no framing, no referrer beyond this site, and a CSP without script
    whose ``form-action`` lets the answer's redirect reach the client (browsers check
    ``form-action`` on a form's redirects too)."""
    target = "'self'"
    if redirect is not None:
        parts = urlsplit(redirect)
        if parts.scheme in ("http", "https") and parts.netloc:
            target += f" {parts.scheme}://{parts.netloc}"
        elif parts.scheme:
            target += f" {parts.scheme}:"
    return {
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
        f"form-action {target}; frame-ancestors 'none'",
        # not no-referrer: with it a browser sends `Origin: null` on the form's POST, which
        # the server's Origin guard refuses; same-origin still tells the client nothing
        "Referrer-Policy": "same-origin",
    }


@dataclass
class Form:
    """What the page shows and the owner chose."""

    request_id: str
    client: str
    redirect: str
    asked: list[str]
    chosen: set[str]
    mode: str
    caller: str
    read: str = ""
    """The folders (comma-separated globs) the new caller may read; empty: no limit."""
    write: str = ""
    """The folders it may write; empty: all it may read."""
    who: str | None = None
    """The signed-in owner (the session form), or ``None`` (the admin-token form)."""
    csrf: str = field(default="", repr=False)


def render(form: Form, error: str = "", status: int = 200) -> HTMLResponse:
    e = html.escape
    scopes = "".join(
        f'<label><input type="checkbox" name="scopes" value="{s}"'
        f"{' checked' if s in form.chosen else ''}> {s}</label>"
        for s in OAUTH_SCOPES
    )
    modes = "".join(
        f'<label><input type="radio" name="write_mode" value="{m}"'
        f"{' checked' if m == form.mode else ''}> {m}"
        f"{' (writes become proposals you confirm)' if m == 'propose' else ''}</label>"
        for m in WRITE_MODES
    )
    auth = (
        ADMIN_FIELD
        if form.who is None
        else SESSION_FIELD.format(csrf=e(form.csrf), who=e(form.who))
    )
    body = PAGE.format(
        client=e(form.client),
        asked=e(" ".join(form.asked) or "(none named)"),
        redirect=e(form.redirect),
        action=CONSENT_PATH,
        request=e(form.request_id),
        auth=auth,
        caller=e(form.caller),
        read=e(form.read),
        write=e(form.write),
        scopes=scopes,
        modes=modes,
        error=f'<p class="error" role="alert">{e(error)}</p>' if error else "",
    )
    return HTMLResponse(body, status_code=status, headers=headers(form.redirect))


def checking(again: str) -> HTMLResponse:
    """A page that loads ``again`` at once, from this site: a browser sent here from another
    site (a connector's page) withholds the ``SameSite=Strict`` session cookie on that
    navigation, and sends it on this one."""
    return HTMLResponse(CHECKING.format(again=html.escape(again)), headers=headers())


def gone() -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><title>hoard</title><p>This authorization request is unknown or has "
        "expired. Start again from the client.</p>",
        status_code=400,
        headers=headers(),
    )


def refused(text: str, status: int) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>hoard</title><p>{html.escape(text)}</p>",
        status_code=status,
        headers=headers(),
    )
