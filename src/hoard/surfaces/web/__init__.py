"""The owner's web app at ``/``: server-rendered pages (Jinja2), a vendored htmx, one
stylesheet, behind a session sign-in (see :mod:`hoard.surfaces.web.guard`)."""

from hoard.surfaces.web.app import build_web
from hoard.surfaces.web.owner_signin import WebOwner

__all__ = ["WebOwner", "build_web"]
