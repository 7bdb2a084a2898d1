"""read_code's sandbox (SPEC section 7, issue 6): real QuickJS workers, real service calls.

Time-limit tests use the real 8 s wall clock once; the other "the parent kills what the
engine cannot interrupt" cases use a shorter clock so the suite stays quick. Wall-clock
bounds here are generous upper bounds ("reported within the limit plus a margin").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from hoard.adapters.sandbox.pool import Limits, Sandbox
from hoard.app.hoard import Hoard
from hoard.app.read_code import read_code
from hoard.core.errors import SandboxError, SandboxLimit
from hoard.core.policy import Caller
from tests.helpers import wait_until

MARGIN_S = 3.0


def limit_of(exc: pytest.ExceptionInfo[SandboxLimit]) -> str:
    obj = exc.value.to_object()
    assert obj["error"] == "sandbox_limit"
    return str(obj["limit"])


# -- the happy path ------------------------------------------------------------------------


def test_a_three_hop_script_returns_the_final_text(
    sandbox: Sandbox, hoard: Hoard, agent: Caller
) -> None:
    code = """
      const found = await call("search", {query: "compost"});
      const top = found.results[0].path;
      const first = await call("read", {path: top});
      const links = await call("links", {path: top});
      const next = links.outgoing[0].resolved_path;
      const second = await call("read", {path: next});
      console.log("hopped", top, "->", next);
      return {top, next, text: second.content};
    """
    out = read_code(hoard.read_methods, sandbox, code, caller=agent)
    assert out.result["top"] == "tech/start.md"
    assert out.result["next"] == "tech/middle.md"
    assert "Halfway there" in out.result["text"]
    assert out.logs == ["hopped tech/start.md -> tech/middle.md"]
    assert [c["tool"] for c in out.calls] == ["search", "read", "links", "read"]
    assert all(c["elapsed_ms"] >= 0 and "error" not in c for c in out.calls)
    assert out.elapsed_ms > 0


def test_undefined_becomes_null_and_values_round_trip(sandbox: Sandbox) -> None:
    assert sandbox.run("const x = 1;", lambda t, a: None).result is None
    value = {"n": 1.5, "s": "žluťoučký", "l": [True, None], "o": {"a": []}}
    assert sandbox.run("return " + __import__("json").dumps(value), lambda t, a: None).result == (
        value
    )


def test_a_refused_call_rejects_with_the_error_code(
    sandbox: Sandbox, hoard: Hoard, agent: Caller
) -> None:
    code = """
      try { await call("read", {path: "tech/nope.md"}); return "read"; }
      catch (e) { return e.message; }
    """
    out = read_code(hoard.read_methods, sandbox, code, caller=agent)
    assert out.result.startswith("not_found: ")
    assert out.calls[0]["error"] == "not_found"


def test_only_the_four_read_tools_are_reachable(
    sandbox: Sandbox, hoard: Hoard, agent: Caller
) -> None:
    code = """
      const out = [];
      for (const tool of ["write", "file_note", "archive", "grant", "policy"]) {
        try { await call(tool, {path: "tech/x.md"}); out.push("reached " + tool); }
        catch (e) { out.push(e.message.split(":")[0]); }
      }
      return out;
    """
    out = read_code(hoard.read_methods, sandbox, code, caller=agent)
    assert out.result == ["invalid_argument"] * 5


# -- rights --------------------------------------------------------------------------------


def test_a_script_cannot_reach_a_protected_note_without_a_grant(
    sandbox: Sandbox, hoard: Hoard, agent: Caller, owner: Caller, secret_word: str
) -> None:
    code = f"""
      const found = await call("search", {{query: "{secret_word}"}});
      const result = {{paths: found.results.map(h => h.path)}};
      try {{ result.read = (await call("read", {{path: "secret/plan.md"}})).content; }}
      catch (e) {{ result.read = e.message.split(":")[0]; }}
      try {{ result.list = (await call("list", {{path: "secret"}})).entries.length; }}
      catch (e) {{ result.list = e.message.split(":")[0]; }}
      return result;
    """
    out = read_code(hoard.read_methods, sandbox, code, caller=agent)
    assert out.result == {"paths": [], "read": "protected", "list": "protected"}
    assert secret_word not in repr(out)
    # The owner's own rights do reach it: the host, not the script, decides.
    mine = read_code(hoard.read_methods, sandbox, code, caller=owner)
    assert mine.result["paths"] == ["secret/plan.md"]
    assert secret_word in mine.result["read"]


# -- the global environment ----------------------------------------------------------------


def test_nothing_reaches_outside_the_sandbox(sandbox: Sandbox) -> None:
    code = """
      const out = {};
      for (const name of ["require", "process", "std", "os", "setTimeout", "setInterval",
                          "fetch", "XMLHttpRequest", "WebSocket", "Deno", "Bun", "scriptArgs",
                          "__hoard_host", "__hoard_log", "__hoard_finish", "__hoard_state",
                          "performance"]) {
        out[name] = typeof globalThis[name];
      }
      for (const mod of ["std", "os", "fs", "node:fs", "./x.js"]) {
        try { await import(mod); out["import " + mod] = "loaded"; }
        catch (e) { out["import " + mod] = "refused"; }
      }
      return out;
    """
    out = sandbox.run(code, lambda t, a: None).result
    for key, value in out.items():
        assert value in ("undefined", "refused"), key


def test_a_static_import_is_a_sandbox_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError):
        sandbox.run('import * as std from "std";\nreturn 1;', lambda t, a: None)


def test_a_script_cannot_leave_anything_behind_for_the_next_one(sandbox: Sandbox) -> None:
    sandbox.run("globalThis.leak = 42; Object.prototype.polluted = 1;", lambda t, a: None)
    for _ in range(4):  # whichever worker answers, its context is fresh
        out = sandbox.run("return [typeof leak, ({}).polluted ?? null]", lambda t, a: None)
        assert out.result == ["undefined", None]


# -- errors --------------------------------------------------------------------------------


def test_a_thrown_error_is_a_sandbox_error_with_message_and_line(sandbox: Sandbox) -> None:
    code = 'const a = 1;\nconst b = 2;\nthrow new Error("boom at three");\n'
    with pytest.raises(SandboxError) as exc:
        sandbox.run(code, lambda t, a: None)
    obj = exc.value.to_object()
    assert obj["error"] == "sandbox_error"
    assert "boom at three" in obj["message"]
    assert obj["line"] == 3


def test_a_syntax_error_is_a_sandbox_error_with_its_line(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError) as exc:
        sandbox.run("const a = 1;\nconst = ;\n", lambda t, a: None)
    assert "SyntaxError" in exc.value.message
    assert exc.value.to_object()["line"] == 2
    with pytest.raises(SandboxError) as exc:
        sandbox.run("const a = 1;\nreturn a +\n", lambda t, a: None)
    assert exc.value.to_object()["line"] == 2  # not the wrapper's closing line


def test_an_error_in_a_refused_call_points_at_the_script_line(sandbox: Sandbox) -> None:
    def host(tool: str, args: dict[str, Any]) -> Any:
        raise SandboxError("nope")

    with pytest.raises(SandboxError) as exc:
        sandbox.run('\n\nawait call("read", {path: "x"});', host)
    assert exc.value.to_object()["line"] == 3
    assert exc.value.message.startswith("Error: sandbox_error: nope")


def test_a_non_serialisable_result_is_a_sandbox_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError):
        sandbox.run("return 10n", lambda t, a: None)


def test_a_promise_that_never_settles_is_a_sandbox_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="never settled"):
        sandbox.run("await new Promise(() => {});", lambda t, a: None)


# -- limits --------------------------------------------------------------------------------


def test_an_infinite_loop_hits_the_eight_second_clock(sandbox: Sandbox) -> None:
    t0 = time.monotonic()
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run("for (;;) {}", lambda t, a: None)
    took = time.monotonic() - t0
    assert limit_of(exc) == "time"
    assert 7.5 <= took <= 8 + MARGIN_S
    assert sandbox.run("return 'still serving'", lambda t, a: None).result == "still serving"


@pytest.mark.parametrize(
    ("code", "allowed"),
    [
        ('return /^(a+)+$/.test("a".repeat(40) + "b");', {"time"}),
        ("return new Array(1e9).join('x').length;", {"time", "memory"}),
        ("let p = Promise.resolve(); for (;;) { p = p.then(() => 1); }", {"time", "memory"}),
        ("const loop = () => Promise.resolve().then(loop); await loop();", {"time", "memory"}),
        ("const a = []; for (;;) a.push('x'.repeat(64) + a.length);", {"time", "memory"}),
        (
            "return Array.prototype.indexOf.call({length: 2 ** 53 - 1}, 'needle');",
            {"time", "memory"},
        ),
    ],
    ids=[
        "catastrophic-regex",
        "huge-join",
        "promise-chain",
        "microtask-loop",
        "fill-memory",
        "huge-array-like-indexOf",
    ],
)
def test_hostile_scripts_are_stopped_and_named(
    sandbox: Sandbox, code: str, allowed: set[str]
) -> None:
    clock = 2.0
    t0 = time.monotonic()
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run(code, lambda t, a: None, Limits(time_s=clock))
    assert limit_of(exc) in allowed
    assert time.monotonic() - t0 <= clock + MARGIN_S


def test_filling_memory_is_reported_as_memory(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run("const a = []; for (;;) a.push('x'.repeat(64) + a.length);", lambda t, a: 0)
    assert limit_of(exc) == "memory"
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run("let s = 'x'; for (;;) s = s + s + '.';", lambda t, a: 0)
    assert limit_of(exc) == "memory"


def test_deep_recursion_hits_the_stack_limit(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run("function f(n) { return f(n + 1) + 1; }\nreturn f(0);", lambda t, a: None)
    assert limit_of(exc) == "stack"


def test_code_over_twenty_kilobytes_is_refused_before_it_runs(sandbox: Sandbox) -> None:
    calls: list[str] = []
    code = "// " + "x" * (21 * 1024) + '\nawait call("search", {query: "x"});'
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run(code, lambda t, a: calls.append(t))
    assert limit_of(exc) == "code_size"
    assert calls == []
    assert sandbox.run("return 1", lambda t, a: None).result == 1


def test_the_sixty_fifth_call_is_refused(sandbox: Sandbox, hoard: Hoard, agent: Caller) -> None:
    ok = read_code(
        hoard.read_methods,
        sandbox,
        'for (let i = 0; i < 64; i++) await call("list", {}); return 1',
        caller=agent,
    )
    assert ok.result == 1 and len(ok.calls) == 64
    with pytest.raises(SandboxLimit) as exc:
        read_code(
            hoard.read_methods,
            sandbox,
            'for (let i = 0; i < 65; i++) await call("list", {});',
            caller=agent,
        )
    assert limit_of(exc) == "calls"
    assert len(exc.value.details["calls"]) == 64


def test_a_result_over_one_mebibyte_is_refused(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run("return 'x'.repeat(2 * 1024 * 1024);", lambda t, a: None)
    assert limit_of(exc) == "result_size"
    near = sandbox.run("return 'x'.repeat(1000 * 1000);", lambda t, a: None)
    assert len(near.result) == 1000 * 1000


@pytest.mark.parametrize(
    "code",
    [
        "return 'x'.repeat(12 * 1024 * 1024);",
        "return Array(1000000).fill('abcdefgh');",
        "return {a: 'é'.repeat(600 * 1000), b: [{k: 'y'.repeat(300 * 1000)}]};",
        "return {toJSON() { return 'z'.repeat(3 * 1024 * 1024); }};",
    ],
    ids=["twelve-mebibyte-string", "a-million-strings", "nested-non-ascii", "to-json"],
)
def test_a_result_too_large_to_stringify_is_refused_as_result_size_not_memory(
    sandbox: Sandbox, code: str
) -> None:
    with pytest.raises(SandboxLimit) as exc:
        sandbox.run(code, lambda t, a: None)
    assert limit_of(exc) == "result_size"
    assert sandbox.run("return [1, {a: 'b'}, 'c'];", lambda t, a: None).result == [
        1,
        {"a": "b"},
        "c",
    ]


def test_logs_are_cut_at_sixty_four_kibibytes_with_a_marker(sandbox: Sandbox) -> None:
    out = sandbox.run(
        "for (let i = 0; i < 10000; i++) console.log('line ' + i + ' ' + 'y'.repeat(50));"
        "return 'done'",
        lambda t, a: None,
    )
    assert out.result == "done"
    assert sum(len(x.encode()) for x in out.logs) <= 64 * 1024 + 100
    assert "truncated" in out.logs[-1]
    assert out.logs[0].startswith("line 0 ")


def test_host_time_counts_against_the_wall_clock(sandbox: Sandbox) -> None:
    def slow(tool: str, args: dict[str, Any]) -> Any:
        time.sleep(0.4)  # the host call's own work (not a wait for something to happen)
        return 1

    with pytest.raises(SandboxLimit) as exc:
        sandbox.run('for (;;) await call("search", {query: "x"});', slow, Limits(time_s=1.0))
    assert limit_of(exc) == "time"


# -- the server keeps serving --------------------------------------------------------------


def test_a_hostile_script_does_not_stall_service_calls_or_other_scripts(
    sandbox: Sandbox, hoard: Hoard, agent: Caller
) -> None:
    outcome: dict[str, BaseException] = {}
    spinning = threading.Event()

    def started(tool: str, args: dict[str, Any]) -> None:
        spinning.set()

    def hostile() -> None:
        try:
            sandbox.run('await call("list", {}); for (;;) {}', started, Limits(time_s=4.0))
        except BaseException as exc:
            outcome["exc"] = exc

    thread = threading.Thread(target=hostile)
    thread.start()
    try:
        wait_until(spinning.is_set)
        t0 = time.monotonic()
        assert hoard.searching.search("compost", caller=agent).results
        assert read_code(
            hoard.read_methods, sandbox, 'return (await call("list", {})).path', caller=agent
        )
        assert time.monotonic() - t0 < 2.0
        assert thread.is_alive()  # the hostile script was still running meanwhile
    finally:
        thread.join(timeout=10)
    assert isinstance(outcome.get("exc"), SandboxLimit)


def test_no_worker_is_left_behind_after_a_hundred_runs(
    children: Callable[[], set[int]],
) -> None:
    before = children()
    sb = Sandbox(workers=2)
    spawned: set[int] = set()
    try:
        for i in range(100):
            if i % 10 == 3:
                with pytest.raises(SandboxLimit):
                    sb.run("for (;;) {}", lambda t, a: None, Limits(time_s=0.2))
            elif i % 10 == 7:
                with pytest.raises(SandboxLimit):
                    sb.run('for (;;) await call("list", {});', lambda t, a: 0, Limits(calls=2))
            elif i % 10 == 9:
                with pytest.raises(SandboxError):
                    sb.run("throw new Error('x')", lambda t, a: None)
            else:
                assert sb.run(f"return {i}", lambda t, a: None).result == i
            spawned |= children() - before
            assert len(children() - before) <= 4
    finally:
        sb.close()
    wait_until(lambda: children() - before == set(), timeout=5)
    assert len(spawned) >= 10  # the killed workers really were replaced


def test_concurrent_runs_each_get_a_worker(sandbox: Sandbox) -> None:
    results: list[Any] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        out = sandbox.run(
            f"let x = 0; for (let k = 0; k < 1e5; k++) x += k; return {i}", lambda t, a: 0
        )
        with lock:
            results.append(out.result)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert sorted(results) == list(range(6))


def test_a_closed_sandbox_refuses_and_leaves_nothing(children: Callable[[], set[int]]) -> None:
    before = children()
    sb = Sandbox(workers=3)
    assert len(children() - before) == 3
    sb.close()
    assert children() - before == set()
    with pytest.raises(Exception, match="closed"):
        sb.run("return 1", lambda t, a: None)
