"""The read-code route: a read-only script in the sandbox, with the caller's own rights."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.models import RunResult
from hoard.surfaces.api.bodies import CodeBody
from hoard.surfaces.api.framework import Body, Call, Op


def code_ops(hoard: Hoard) -> list[Op]:
    def run(call: Call) -> RunResult:
        body: CodeBody = call.body
        return hoard.code.run(body.code, caller=call.caller)

    return [
        Op(
            method="POST",
            path="/read-code",
            op_id="read_code",
            summary=(
                "Run read-only JavaScript over the vault in the sandbox (8 s, 32 MiB, 20 KB of "
                'code): await call("search" | "read" | "links" | "list", args).'
            ),
            tag="read-code",
            handler=run,
            ok={200: RunResult},
            body=Body(CodeBody),
            errors=(400, 403, 413, 422),
        ),
    ]
