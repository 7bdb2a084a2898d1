"""The limits of one read_code run: what a script may spend."""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    time_s: float = 8.0
    memory: int = 32 * MIB
    stack: int = 256 * KIB
    code_size: int = 20 * KIB
    calls: int = 64
    result_size: int = 1 * MIB
    logs: int = 64 * KIB
    call_args: int = 1 * MIB
