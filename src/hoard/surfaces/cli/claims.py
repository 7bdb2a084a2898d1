"""``hoard claims``: the owner's view of claims and synthesis registrations.

- ``hoard claims [--subject S] [--source PATH]``: list recorded claims;
- ``hoard claims --get SUBJECT PROPERTY [--scope S] [--at WHEN]``: the checked answer;
- ``hoard claims --status SUMMARY``: a summary's synthesis state.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from hoard.app.hoard import Hoard
from hoard.app.honesty import ClaimGetResult, ClaimListResult, Honesty, SynthesisStatusResult
from hoard.core.models import to_json
from hoard.core.policy import OWNER
from hoard.surfaces.cli.common import add_common

COMMANDS = ("claims",)


def add_parsers(sub: Any) -> None:
    """Add ``claims`` to the CLI's subparsers."""
    p = sub.add_parser("claims", help="recorded claims, checked claims and summary states")
    add_common(p)
    p.add_argument("--subject", default=None, help="only claims about this subject")
    p.add_argument("--source", default=None, help="only claims taken from this note")
    p.add_argument(
        "--get", nargs=2, metavar=("SUBJECT", "PROPERTY"), help="check one claim on disk"
    )
    p.add_argument("--scope", default="global", help="with --get (default: global)")
    p.add_argument("--at", default=None, help="with --get: ISO 8601 moment (default: now)")
    p.add_argument("--status", metavar="SUMMARY", help="a registered summary's state")


def run(args: argparse.Namespace, hoard: Hoard) -> int:
    return claims_command(args, hoard.honesty)


def claims_command(args: argparse.Namespace, honesty: Honesty) -> int:
    result: ClaimGetResult | ClaimListResult | SynthesisStatusResult
    if args.get:
        result = honesty.claims.get(args.get[0], args.get[1], args.scope, args.at, caller=OWNER)
        text = _get_text(result)
    elif args.status:
        result = honesty.syntheses.status(args.status, caller=OWNER)
        text = _status_text(result)
    else:
        result = honesty.claims.list_claims(args.subject, args.source, caller=OWNER)
        text = _list_text(result)
    if args.json:
        print(json.dumps(to_json(result), ensure_ascii=False, indent=2))
    else:
        print(text)
    return 0


def _list_text(r: ClaimListResult) -> str:
    if not r.claims:
        return "no claims"
    lines = []
    for c in r.claims:
        window = ""
        if c.valid_from or c.valid_until:
            window = f"  [{c.valid_from or '…'} → {c.valid_until or '…'})"
        mark = "" if c.live else f"  (superseded by {c.superseded_by})"
        lines.append(
            f"{c.claim_id}  {c.subject} / {c.property} / {c.scope} = {c.value!r}  "
            f"from {c.source_path}@{c.source_revision[:12]}{window}{mark}"
        )
    return "\n".join(lines)


def _get_text(r: ClaimGetResult) -> str:
    head = f"{r.status}: {r.subject} / {r.property} / {r.scope}"
    if r.value is not None:
        head += f" = {r.value!r}"
    lines = [head, f"  {r.message}"]
    if r.source_path:
        lines.append(
            f"  source {r.source_path}: recorded {(r.recorded_revision or '')[:12]}, "
            f"now {(r.current_revision or 'gone')[:12]}"
        )
    lines += [
        f"  conflicting {c.claim_id}: {c.value!r} from {c.source_path}" for c in r.conflicting
    ]
    lines.append(f"  ({r.disclaimer})")
    return "\n".join(lines)


def _status_text(r: SynthesisStatusResult) -> str:
    lines = [f"{r.path}: {r.state}: {r.message}"]
    for d in r.drifted:
        now = "missing" if d.current_revision is None else d.current_revision[:12]
        lines.append(f"  drifted {d.path} (via {d.via}): {d.recorded_revision[:12]} → {now}")
    b = r.budget
    lines.append(
        f"  checked {b['file_checks']} files ({b['cached']} unchanged, not re-read), "
        f"{b['bytes_read']} bytes, {b['elapsed_ms']:.1f} ms"
        + (f"; budget ran out ({b['exhausted_by']})" if b["exhausted"] else "")
    )
    lines.append(f"  ({r.disclaimer})")
    return "\n".join(lines)
