"""The pool of extraction workers (:mod:`.worker`): attachments' text is read in child
processes with CPU-time, memory and wall-clock limits, never in the server process.

Like the read_code sandbox's pool: a worker whose job ended inside the protocol (text or a
reported problem) is kept for the next job; one that ran past the wall clock is killed, one
that died (the CPU limit, the address-space limit, a parser's crash) is replaced, and the
file is listed with the reason. Workers start on first use, so a vault without attachments
never starts one. Thread-safe; :meth:`ExtractorPool.close` (also at exit) leaves no child.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from typing import Any

from hoard.adapters.sandbox.worker_process import DeadlinePassed, WorkerGone
from hoard.core.attachments import AttachmentKind, AttachmentLimits, AttachmentProblem, Extracted
from hoard.core.errors import IoError

log = logging.getLogger("hoard.attachments")

WORKER_MODULE = "hoard.adapters.attachments.worker"
MAX_JOBS_PER_WORKER = 100
READ_CHUNK = 1 << 20


class _Worker:
    """The parent's handle on one worker process."""

    def __init__(self, memory: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", WORKER_MODULE, str(memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"},
            cwd="/",
            close_fds=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.in_fd = self.proc.stdin.fileno()
        self.out_fd = self.proc.stdout.fileno()
        os.set_blocking(self.in_fd, False)
        self.jobs = 0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            self._wait(self.in_fd, select.POLLOUT, deadline)
            try:
                n = os.write(self.in_fd, view[: 1 << 20])
            except BlockingIOError:
                continue
            except OSError as exc:
                raise WorkerGone(f"cannot write to the worker: {exc}") from exc
            view = view[n:]

    def recv(self, deadline: float, cap: int) -> dict[str, Any]:
        buf = bytearray()
        while b"\n" not in buf:
            if len(buf) > cap:
                raise WorkerGone("the worker sent an oversized message")
            self._wait(self.out_fd, select.POLLIN, deadline)
            try:
                chunk = os.read(self.out_fd, READ_CHUNK)
            except OSError as exc:
                raise WorkerGone(f"cannot read from the worker: {exc}") from exc
            if not chunk:
                raise WorkerGone("the worker exited")
            buf += chunk
        try:
            reply = json.loads(bytes(buf[: buf.index(b"\n")]))
        except ValueError as exc:
            raise WorkerGone("the worker sent something that is not JSON") from exc
        if not isinstance(reply, dict):
            raise WorkerGone("the worker sent something that is not an object")
        return reply

    @staticmethod
    def _wait(fd: int, event: int, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DeadlinePassed
        poller = select.poll()
        poller.register(fd, event | select.POLLHUP | select.POLLERR)
        if not poller.poll(max(1, int(remaining * 1000) + 1)) and time.monotonic() >= deadline:
            raise DeadlinePassed

    def kill(self) -> int | None:
        """Kill the process; its exit status (negative: the signal that ended it)."""
        with contextlib.suppress(ProcessLookupError, OSError):
            if self.proc.poll() is None:
                self.proc.kill()
        status: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            status = self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return status


def _close_at_exit(ref: weakref.ref[ExtractorPool]) -> None:
    pool = ref()
    if pool is not None:
        pool.close()


class ExtractorPool:
    """At most ``workers`` extraction processes at once (a job waits for a free one)."""

    def __init__(self, limits: AttachmentLimits, workers: int = 1) -> None:
        self.limits = limits
        self._slots = threading.BoundedSemaphore(max(1, workers))
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._closed = False
        atexit.register(_close_at_exit, weakref.ref(self))

    def extract(
        self, kind: AttachmentKind, data: bytes, sha256: str, tesseract: str | None = None
    ) -> Extracted:
        """The text of one file's bytes, or the problem that stopped it. Never raises for
        anything the file does; :class:`IoError` only when the pool is closed."""
        self._slots.acquire()
        try:
            worker = self._take()
            kept = False
            try:
                reply = self._job(worker, kind, data, tesseract)
                kept = True
            except DeadlinePassed:
                worker.kill()
                self._refuse_if_closed()
                return _problem(sha256, "time", f"past the {self.limits.time_s:g} s limit")
            except WorkerGone as exc:
                status = worker.kill()
                self._refuse_if_closed()
                return _died(sha256, status, str(exc), self.limits)
            finally:
                if kept:
                    self._give_back(worker)
                else:
                    self._forget(worker)
            return _extracted(sha256, reply)
        finally:
            self._slots.release()

    def _refuse_if_closed(self) -> None:
        """A job cut short by :meth:`close` says nothing about its file."""
        with self._lock:
            if self._closed:
                raise IoError("the attachment extractor closed during an extraction")

    def _job(
        self, worker: _Worker, kind: str, data: bytes, tesseract: str | None
    ) -> dict[str, Any]:
        lim = self.limits
        deadline = time.monotonic() + lim.time_s
        header = {
            "kind": kind,
            "size": len(data),
            "max_pages": lim.max_pages,
            "max_chars": lim.max_text_chars,
            "max_pixels": lim.max_pixels,
            "time_s": lim.time_s,
            "tesseract": tesseract,
        }
        worker.send(json.dumps(header).encode() + b"\n" + data, deadline)
        return worker.recv(deadline, 8 * lim.max_text_chars + (1 << 20))

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise IoError("the attachment extractor is closed")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                self._live.discard(worker)
        worker = _Worker(self.limits.memory_bytes)
        with self._lock:
            self._live.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        worker.jobs += 1
        with self._lock:
            if not self._closed and worker.jobs < MAX_JOBS_PER_WORKER and worker.alive():
                self._idle.append(worker)
                return
        self._forget(worker)

    def _forget(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._live.discard(worker)

    def child_pids(self) -> list[int]:
        """The live worker processes (for tests and diagnostics)."""
        with self._lock:
            return sorted(w.proc.pid for w in self._live if w.alive())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._live)
            self._idle.clear()
            self._live.clear()
        for worker in workers:
            worker.kill()


def _problem(sha256: str, problem: AttachmentProblem, detail: str) -> Extracted:
    return Extracted(sha256, problem=problem, detail=detail)


def _died(sha256: str, status: int | None, why: str, limits: AttachmentLimits) -> Extracted:
    """A worker that died mid-job: past its CPU time (SIGXCPU, or the alarm), else most
    likely past its address space (a parser that cannot allocate aborts)."""
    if status in (-signal.SIGXCPU, -signal.SIGALRM):
        return _problem(sha256, "time", f"past the {limits.time_s:g} s CPU limit")
    log.info("an extraction worker died (%s, status %s)", why, status)
    mib = limits.memory_bytes // (1024 * 1024)
    return _problem(sha256, "memory", f"the extraction died (most likely past {mib} MiB)")


def _extracted(sha256: str, reply: dict[str, Any]) -> Extracted:
    if reply.get("ok") is True:
        pages = reply.get("pages")
        if isinstance(pages, list) and all(isinstance(p, str) for p in pages):
            return Extracted(sha256, tuple(pages), truncated=bool(reply.get("truncated")))
        return _problem(sha256, "malformed", "the worker's answer had no pages")
    problem = reply.get("problem")
    known = {"too_large", "too_many_pages", "encrypted", "malformed", "time", "memory"}
    checked: AttachmentProblem = problem if problem in known else "malformed"
    return _problem(sha256, checked, str(reply.get("detail") or "")[:500])
