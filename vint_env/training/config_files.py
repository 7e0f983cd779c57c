"""Config files: safe YAML, and inheritance (``base: other.yaml``).

A config file is a mapping of sections (or keys given alone, :func:`~vint_env.training.config.nest`);
it may name one file it inherits from with ``base:``, so that it states only what differs::

    base: whist_ppo.yaml          # resolved relative to this file
    run: {name: whist_rl, max_minutes: 75}

The base is read first and this file's keys replace its keys (a key's whole value: a mapping such as
``opponent_mix`` is replaced, not merged).  A base is a file path, never a URL, and must lie in the
folder of the config file the user named (or below it); a cycle and a chain deeper than
:data:`MAX_BASE_DEPTH` are refused.  Every error names the file once: ``config file 'X': ...``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from vint_env.inputs import InputFileError, read_regular


#: Bounds of a config file read as YAML: a config is a page of keys, so anything larger is refused before parsing.
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_DEPTH = 16
#: Files a config may inherit through (``base:`` of a ``base:`` ...).
MAX_BASE_DEPTH = 8
BASE_KEY = "base"


class ConfigError(ValueError):
    """A config file or override that is malformed, unknown, of the wrong type or out of range (defined
    here, the lowest module that raises it; :mod:`vint_env.training.config` exports it)."""


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML keeps the last, silently)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise ConfigError(f"key {key!r} is given twice (lines {seen[key]} and {line}); give it once")
                seen[key] = line
            except TypeError:            # an unhashable key: the base loader names it
                continue
        return super().construct_mapping(node, deep)


def safe_yaml(text: str, source: str):
    """``yaml.safe_load`` of a config, refusing aliases (``*name``: the billion-laughs bomb), text over
    ``MAX_CONFIG_BYTES`` and nesting deeper than ``MAX_CONFIG_DEPTH``, all before anything is built,
    and a key given twice in one mapping."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_CONFIG_BYTES} bytes; a config is a page of keys")
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(f"YAML aliases (*{event.anchor}) are not accepted in a config; write the value out")
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_CONFIG_DEPTH:
                    raise ConfigError(f"nested deeper than {MAX_CONFIG_DEPTH} levels")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return yaml.load(text, Loader=_UniqueKeys)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{source} is not valid YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply") from None


def _read_one(path: Path, source: str) -> dict:
    """The mapping in one config file (its ``base`` key left in)."""
    try:        # a regular file (/dev/zero or a FIFO is refused by name, not read), a page of keys
        text = read_regular(path, "config file", MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{source} does not exist") from None
    except InputFileError as e:
        raise ConfigError(f"{e}; a config is a page of keys") from None
    except (UnicodeDecodeError, OSError) as e:
        raise ConfigError(f"{source} is not readable UTF-8 text: {e}") from None
    data = safe_yaml(text, source)
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys, got {type(data).__name__}")
    return data


def _base_path(name, path: Path, root: Path, source: str) -> Path:
    """The file ``base: name`` of the config file ``path`` names: relative to ``path``'s folder, inside ``root``."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{source}: base must be the path of a config file, got {name!r}")
    if "://" in name or name.startswith(("http:", "https:", "file:")):
        raise ConfigError(f"{source}: base {name!r} is a URL; a base is a config file beside this one")
    base = (path.parent / name).resolve()
    try:
        base.relative_to(root)
    except ValueError:
        raise ConfigError(f"{source}: base {name!r} lies outside {str(root)!r}, the folder of the config "
                          f"file given; a base is a config file in that folder") from None
    return base


def config_layers(path: Path) -> list[tuple[Path, dict]]:
    """``(file, its mapping)`` of the config file ``path`` and of each file it inherits from, in that
    order (the named file first), as written (sectioned or flat), before the keys are checked."""
    path = Path(path)
    root = path.resolve().parent
    layers: list[tuple[Path, dict]] = []
    current, source = path, f"config file {str(path)!r}"
    while True:
        resolved = current.resolve()
        chain = [p.resolve() for p, _ in layers]
        if resolved in chain:
            names = " -> ".join(p.name for p in [*chain, resolved])
            raise ConfigError(f"config file {str(path)!r}: its bases form a cycle ({names})")
        if len(layers) > MAX_BASE_DEPTH:
            raise ConfigError(f"config file {str(path)!r}: more than {MAX_BASE_DEPTH} bases deep")
        data = _read_one(current, source)
        base = data.pop(BASE_KEY, None)
        layers.append((current, data))
        if base is None:
            return layers
        current = _base_path(base, current, root, source)
        source = f"config file {str(path)!r}, base {str(current)!r}"


def read_config_file(path: Path, nest) -> dict[str, dict]:
    """The sectioned mapping of the config file ``path`` with the files it inherits from merged in
    (this file's keys over its base's), before the keys are checked; ``nest`` makes each file's mapping
    sectioned (:func:`vint_env.training.config.nest`, whose errors are named with the file here)."""
    merged: dict[str, dict] = {}
    layers = config_layers(path)
    for i, (current, data) in reversed(list(enumerate(layers))):   # the deepest base first, the named file last
        source = f"config file {str(path)!r}" + (f", base {str(current)!r}" if i else "")
        try:
            layer = nest(data)
        except ConfigError as e:
            raise ConfigError(f"{source}: {e}") from None
        for section, keys in layer.items():
            merged.setdefault(section, {}).update(keys)
    return merged
