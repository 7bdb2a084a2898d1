"""What `hoard serve` prints on stderr tells a person how to connect."""

import re
from pathlib import Path

from hoard.surfaces.serve import connect_help


def test_serving_http_prints_an_http_snippet_with_the_token_and_a_stdio_snippet() -> None:
    text = connect_help(Path("/v"), Path("/s"), Path("/t.json"), ("127.0.0.1", 8765), "hoard_x")

    assert "http://127.0.0.1:8765/mcp" in text
    assert '"Authorization": "Bearer hoard_x"' in text
    # The stdio snippet names hoard by its absolute path (a desktop client has no venv PATH).
    assert re.search(r'"command": "/[^"]*hoard"', text), text
    assert '"--vault",\n' in text or '"--vault"' in text


def test_serving_http_without_a_known_token_says_how_to_make_one() -> None:
    text = connect_help(Path("/v"), Path("/s"), Path("/t.json"), ("127.0.0.1", 8765))

    assert "hoard token add" in text
    assert "<token from hoard token add>" in text


def test_serving_stdio_prints_the_stdio_snippet_only() -> None:
    text = connect_help(Path("/v"), Path("/s"), Path("/t.json"), None)

    assert "stdio" in text
    assert "Authorization" not in text
