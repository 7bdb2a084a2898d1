"""Every line on stdin gets an answer (issue 18, item 3): ``hoard serve --stdio`` fed raw
bytes answers what it cannot understand with a JSON-RPC error instead of dropping it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
PARSE_ERROR = -32700


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_stdio: Callable[..., Any]) -> Any:
    """One server for the module: every test also shows it still serves afterwards."""
    root = tmp_path_factory.mktemp("unreadable")
    (root / "vault/tech").mkdir(parents=True)
    (root / "vault/tech/a.md").write_text(note_text("Alpha", "the pangolin"), encoding="utf-8")
    return module_stdio(root / "vault", root / "state")


def note_text(title: str, body: str) -> str:
    return (
        f"---\ntitle: {title}\ntype: note\nstatus: active\ntags: [alpha, beta]\n"
        f"updated: 2026-03-01\n---\n{body}\n"
    )


def call_line(rid: int, arguments: str, tool: str = "vault_search") -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments}}}}}\n'
    ).encode()


@pytest.mark.parametrize(
    "arguments",
    [
        '{"query":"\\ud800"}',
        '{"query":"x\\udfff y"}',
        '{"query":"x","limit":' + "9" * 5000 + "}",
        '{"query":"x","limit":-' + "1" * 4400 + "}",
    ],
    ids=["lone-high-surrogate", "lone-low-surrogate", "huge-integer", "huge-negative-integer"],
)
def test_a_request_json_rpc_cannot_carry_gets_invalid_params_with_its_id(
    server: Any, arguments: str
) -> None:
    server.send_raw(call_line(41, arguments))

    answer = server.answer()

    assert answer["id"] == 41
    assert answer["error"]["code"] == INVALID_PARAMS
    assert server.call("vault_search", {"query": "pangolin"})["structuredContent"]["results"]


def test_every_string_argument_of_every_tool_is_answered(server: Any) -> None:
    tools = server.request("tools/list", {})["result"]["tools"]
    sent = 0
    for tool in tools:
        for name, spec in tool["inputSchema"].get("properties", {}).items():
            if spec.get("type") == "string" or "anyOf" in spec:
                sent += 1
                server.send_raw(call_line(1000 + sent, f'{{"{name}":"\\ud800"}}', tool["name"]))
                answer = server.answer()
                assert answer["id"] == 1000 + sent, (tool["name"], name)
                assert answer["error"]["code"] == INVALID_PARAMS
    assert sent >= 20


def test_a_line_that_is_not_json_gets_a_parse_error_with_a_null_id(server: Any) -> None:
    server.send_raw(b"this is not json\n")

    answer = server.answer()

    assert answer["id"] is None
    assert answer["error"]["code"] == PARSE_ERROR


def test_a_json_object_that_is_not_json_rpc_gets_invalid_request(server: Any) -> None:
    server.send_raw(b'{"id": 7, "hello": "world"}\n')

    answer = server.answer()

    assert answer["id"] == 7
    assert answer["error"]["code"] == INVALID_REQUEST


def test_an_unreadable_notification_gets_no_answer_and_the_server_serves_on(server: Any) -> None:
    server.send_raw(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}\n')
    server.send_raw(call_line(9, '{"query":"pangolin"}'))

    answer = server.answer()

    assert answer["id"] == 9
    assert answer["result"]["structuredContent"]["results"][0]["path"] == "tech/a.md"


def deep_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def deep_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","id":77,"method":"tools/list","params":{"x":' + deep_arrays(5000) + "}}",
        '{"jsonrpc":"2.0","id":77,"method":"tools/list","params":' + deep_objects(5000) + "}",
        '{"params":{"x":' + deep_arrays(100_000) + '},"jsonrpc":"2.0","id":77,"method":"x"}',
        '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"vault_search",'
        '"arguments":{"query":"x","filters":' + deep_objects(100) + "}}}",
    ],
    ids=["arrays-5000-deep", "objects-5000-deep", "id-after-100000-deep", "arguments-100-deep"],
)
def test_a_line_nested_too_deep_gets_a_parse_error_with_its_id_and_the_server_serves_on(
    server: Any, line: str
) -> None:
    server.send_raw(line.encode() + b"\n")

    answer = server.answer()

    assert answer["id"] == 77
    assert answer["error"]["code"] == PARSE_ERROR
    assert "deep" in answer["error"]["message"]
    assert any(
        t["name"] == "vault_search" for t in server.request("tools/list", {})["result"]["tools"]
    )


@pytest.mark.parametrize("body", [deep_arrays(5000), deep_objects(5000) + " trailing"])
def test_a_line_nested_too_deep_without_a_readable_id_gets_a_parse_error_with_a_null_id(
    server: Any, body: str
) -> None:
    server.send_raw(body.encode() + b"\n")

    answer = server.answer()

    assert answer["id"] is None
    assert answer["error"]["code"] == PARSE_ERROR
    assert server.call("vault_search", {"query": "pangolin"})["structuredContent"]["results"]
