"""Issue 23 item 12: a config file cannot make the loader run for minutes or fill the memory."""

from __future__ import annotations

import time

import pytest

from vint_env.training.config import ConfigError, load_config
from vint_env.training.config_files import MAX_CONFIG_BYTES

BOMB = """\
name: bomb
env_kwargs:
  a: &a [x, x, x, x, x, x, x, x, x, x]
  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
  h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
  i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    assert len(BOMB) < 1024
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=r"YAML aliases \(\*a\) are not accepted"):
        load_config(path)
    assert time.perf_counter() - start < 5


def test_an_alias_in_a_set_override_is_refused():
    with pytest.raises(ConfigError, match="aliases"):
        load_config(None, ["env_kwargs={a: &a [1, 2], b: [*a, *a]}"])


def test_too_large_and_too_deep_configs_are_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("name: x\n" + "#" * MAX_CONFIG_BYTES)
    with pytest.raises(ConfigError, match="larger than"):
        load_config(big)
    deep = tmp_path / "deep.yaml"
    deep.write_text("env_kwargs: " + "[" * 40 + "]" * 40 + "\n")
    with pytest.raises(ConfigError, match="nested deeper than 16"):
        load_config(deep)


def test_binary_config_is_a_config_error(tmp_path):
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"\xff\xfe\x00\x01name")
    with pytest.raises(ConfigError, match="not readable UTF-8"):
        load_config(path)


def test_ordinary_configs_still_load():
    assert load_config("configs/smoke.yaml").run.name == "smoke"
    assert load_config(None, ["network_kwargs={hidden_sizes: [8, 8]}"]).model.network_kwargs == {"hidden_sizes": [8, 8]}

