"""Agent specs: one grammar for every kind of player, parsed once into an :class:`AgentSpec`.

A spec is ``KIND``, or ``KIND:ITEM,ITEM,...``: after the colon, comma-separated, the kind's argument
first (for a kind that takes one: a checkpoint path, a folder, a bot's name) and then its options as
``KEY=VALUE``::

    rule                                      pimc:samples=32,time=0.5
    network:runs/whist/checkpoints/latest.pt  bidder:runs/bidder.pt,cards=rule
    baseline:my_baselines                     openspiel:ismcts,sims=300,seed=7

Every kind is one :class:`AgentKind` in :data:`KINDS`, the one place a kind is declared: its argument,
its options (each a :class:`Option`, the declared-parameter machinery of the games'
:mod:`~vint_env.games.params`: type, default, range, a line of doc), which of them name files it reads
(the output-over-input check and `vint-serve`'s folder allow-list read them from here), whether a web
request may ask for it, the factory that builds its agent, and the other names it answers to (``ppo`` is
``network``'s: a spec reads back under the kind's own name).  :func:`parse_spec` is the one parser:
an unknown kind or option names the nearest known one, a value out of range names the option and its
range, an option given twice is an error, and surrounding blanks are dropped before anything is
decided (a guard on the raw text is a bypass: ``" py:this:x"`` is a ``py`` spec).

>>> spec = parse_spec("pimc:time=0.5,samples=32")
>>> spec.kind, spec.argument, spec.option("samples"), spec.option("auction")
('pimc', None, 32, False)
>>> str(spec)                                   # options in their declared order
'pimc:samples=32,time=0.5'
>>> parse_spec("pimc:samples=3,samples=4")
Traceback (most recent call last):
...
vint_env.agents.spec.AgentSpecError: agent spec 'pimc:samples=3,samples=4': option samples is given twice; give it once
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..games.params import MAX_POINTS, OptionError, Parameter, unknown_name
from ..inputs import excerpt

__all__ = ["ALIASES", "AgentKind", "AgentSpec", "AgentSpecError", "Argument", "KINDS", "MAX_SPEC_LENGTH", "Option",
           "kind", "parse_spec", "kinds_table", "kinds_listing", "describe"]

#: The longest spec text read (a path of the longest length most systems allow, and options).
MAX_SPEC_LENGTH = 4096 + 512
#: The largest seed an agent's option takes (NumPy's and OpenSpiel's generators take 32 bits).
MAX_SEED = 2**32 - 1


class AgentSpecError(ValueError, TypeError):
    """An agent spec that names no agent: a text outside the grammar, an unknown kind or option, a value
    out of its range, a module that does not import, a factory that fails."""


@dataclass(frozen=True)
class Option(Parameter):
    """An option of an agent kind (a :class:`~vint_env.games.params.Parameter`); ``path``: ``"file"`` or
    ``"folder"`` when its value names one the agent reads; ``web_maximum``: the largest value a
    `vint-serve` request may give (a web table's bound on the work it sets a bot, below ``maximum``);
    ``words``: the value is blank-separated words in shell quoting (a program's arguments), checked to
    split (:meth:`words_of`)."""

    path: str | None = None
    web_maximum: float | None = None
    words: bool = False

    def check(self, value):
        value = super().check(value)
        if self.words and value is not None:
            self.words_of(value)
        return value

    def words_of(self, value: str) -> list[str]:
        """The words of a ``words`` option's value; OptionError naming the option when its quoting does not
        close (an unbalanced quote, a trailing backslash)."""
        import shlex
        try:
            return shlex.split(value)
        except ValueError as e:
            raise OptionError(f"{self.name} must be blank-separated words in shell quoting, got {excerpt(value)}: "
                              f"{str(e).lower()}") from None


@dataclass(frozen=True)
class Argument:
    """The argument of a kind, written first after the colon (``network:PATH``)."""

    name: str                                 #: as the docs write it: PATH, DIR, BOT, MODULE:NAME
    doc: str                                  #: one line
    required: bool = True
    path: str | None = None                   #: "file" or "folder" when it names one the agent reads;
    #: "module" when it names a Python module (``MODULE:NAME``) whose source file the agent runs
    allowed: tuple[str, ...] | None = None    #: the values allowed (a bot's name), or None for any text
    default_path: Callable[[], Path] | None = None   #: the folder read when no argument is given


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent: what its spec may hold and how its agent is built (see the module docstring).

    ``make``: ``"module:function"``, loaded on first use, ``function(record, spec, seed) -> Agent``;
    ``web``: a `vint-serve` request may ask for it (never a kind that imports or runs code);
    ``runs_code``: it imports or runs code the spec names, so no stored config decides it;
    ``time_option``: the option that bounds a decision's seconds (`vint-serve` caps it);
    ``extra``: the pip extra its agents need, for the message when it is missing;
    ``aliases``: other names of the kind in a spec (``ppo`` for ``network``), read as the kind's own.
    """

    name: str
    doc: str
    make: str
    argument: Argument | None = None
    options: tuple[Option, ...] = ()
    web: bool = True
    runs_code: bool = False
    time_option: str | None = None
    extra: str | None = None
    games: str = "every game"                 #: which games it plays, for the listing
    aliases: tuple[str, ...] = ()

    def __post_init__(self):
        if self.runs_code and self.web:
            raise ValueError(f"agent kind {self.name!r} runs code: a web request must never ask for it")
        if self.time_option is not None and self.time_option not in self.option_names:
            raise ValueError(f"agent kind {self.name!r}: time_option {self.time_option!r} is not one of its options")

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise unknown_name(self.name, name, self.option_names, "option")

    def usage(self) -> str:
        """How a spec of this kind is written: ``'pimc[:OPTION,...]'``, ``'bidder:PATH[,OPTION,...]'``."""
        arg, more = self.argument, ",OPTION,..." if self.options else ""
        if arg is None:
            return f"{self.name}[:{more[1:]}]" if more else self.name
        if arg.required:
            return f"{self.name}:{arg.name}" + (f"[{more}]" if more else "")
        return f"{self.name}[:{arg.name}]" + (f"[{more}]" if more else "")


def describe(o: Option) -> str:
    """What an option's value must be, as the spec text writes it (``0 or 1``, ``rule or dd``)."""
    if o.type is bool:
        return "0 or 1"
    if o.allowed is not None:
        return " or ".join(str(v) for v in o.allowed)
    return o.describe().removesuffix(" or None")


def _format(value) -> str:
    """An option value as the spec text writes it (read back by :meth:`Parameter.parse`)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: its kind, its argument (or None) and the options it gives (in the kind's
    declared order, checked values).  Made by :func:`parse_spec`, or directly (checked the same way);
    ``str(spec)`` is its text, which :func:`parse_spec` reads back to an equal spec."""

    kind: str
    argument: str | None = None
    options: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self):
        object.__setattr__(self, "kind", ALIASES.get(self.kind, self.kind))
        if self.kind not in KINDS:
            raise AgentSpecError(_unknown_kind(self.kind))
        declared = KINDS[self.kind]
        text = excerpt(self.kind)
        arg = declared.argument
        if self.argument is not None:
            if arg is None:
                raise AgentSpecError(f"agent kind {text} takes no argument; write it {declared.usage()}")
            if not isinstance(self.argument, str) or not self.argument or "," in self.argument \
                    or self.argument != self.argument.strip():
                raise AgentSpecError(f"agent kind {text}: its {arg.name} must be non-empty text without commas "
                                     f"or surrounding blanks, got {excerpt(self.argument)}")
            if arg.allowed is not None and self.argument not in arg.allowed:
                raise AgentSpecError(f"agent kind {text}: {arg.name} must be one of {', '.join(arg.allowed)}, "
                                     f"got {excerpt(self.argument)}")
        elif arg is not None and arg.required:
            raise AgentSpecError(f"agent kind {text} needs its {arg.name} ({arg.doc}): write it {declared.usage()}")
        if not isinstance(self.options, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in self.options):
            raise AgentSpecError(f"agent spec options must be a tuple of (name, value) pairs, got {excerpt(self.options)}")
        names = [name for name, _ in self.options]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise AgentSpecError(f"agent kind {text}: option {excerpt(name)} is given twice; give it once")
        try:
            checked = {name: declared.option(name).check(value) for name, value in self.options}
        except OptionError as e:
            raise AgentSpecError(f"{self.kind} option {e}") from None
        # an optional option given as None is left to its default: it is not given
        ordered = tuple((name, checked[name]) for name in declared.option_names
                        if name in checked and checked[name] is not None)
        object.__setattr__(self, "options", ordered)

    @property
    def declaration(self) -> AgentKind:
        """The kind's declaration in :data:`KINDS`."""
        return KINDS[self.kind]

    @property
    def given(self) -> dict:
        """The options the spec gives (not their defaults)."""
        return dict(self.options)

    def option(self, name: str):
        """Option ``name``: the value given, or its declared default."""
        declared = self.declaration.option(name)
        return self.given.get(name, declared.default)

    def with_options(self, **options) -> AgentSpec:
        """This spec with ``options`` given (replacing values it gave)."""
        return AgentSpec(self.kind, self.argument, tuple({**self.given, **options}.items()))

    def paths(self, defaults: bool = True) -> list[tuple[str, Path, str]]:
        """The files and folders this spec's agent reads: ``(label, path, "file" or "folder")`` for its
        argument and options that name one, ``(label, path, "module")`` for the source file of the
        module a ``py:MODULE:NAME`` argument names (found without importing it: :func:`module_file`);
        with ``defaults``, also the folder read when the argument is left out (``baseline``: the
        shipped baselines)."""
        out = []
        arg = self.declaration.argument
        if arg is not None and arg.path == "module":
            source = module_file(self.argument.partition(":")[0]) if self.argument else None
            if source is not None:
                out.append((f"agent {self} (its module)", source, "module"))
        elif arg is not None and arg.path is not None:
            if self.argument is not None:
                out.append((f"agent {self}", Path(self.argument), arg.path))
            elif defaults and arg.default_path is not None:
                out.append((f"agent {self}", Path(arg.default_path()), arg.path))
        for o in self.declaration.options:
            if o.path is not None and self.given.get(o.name) is not None:
                out.append((f"agent {self} ({o.name})", Path(self.given[o.name]), o.path))
        return out

    def __str__(self) -> str:
        items = ([self.argument] if self.argument is not None else []) + \
                [f"{name}={_format(value)}" for name, value in self.options]
        return self.kind + (":" + ",".join(items) if items else "")


def module_file(name: str) -> Path | None:
    """The source file of module ``name`` (``pkg.mod``: ``pkg/mod.py``; a package: its ``__init__.py``) as
    the import system would find it now, without importing it or its packages (nothing of theirs runs);
    None when it is not found or has no file (a built-in module, a namespace package)."""
    import importlib.machinery
    import importlib.util
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    try:
        found = importlib.util.find_spec(parts[0])          # a top-level name: asks the finders, imports nothing
        for i in range(1, len(parts)):
            if found is None or found.submodule_search_locations is None:
                return None
            found = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]),
                                                             list(found.submodule_search_locations))
    except (ImportError, ValueError, AttributeError, OSError):
        return None
    if found is None or not found.has_location or not found.origin:
        return None
    return Path(found.origin)


def _unknown_kind(name) -> str:
    return str(unknown_name("agent spec", name, list(KINDS), "kind", "the kinds"))


def parse_spec(text) -> AgentSpec:
    """The :class:`AgentSpec` of ``text`` (an :class:`AgentSpec` is returned as it is); an
    :class:`AgentSpecError` naming what is wrong otherwise (see the module docstring)."""
    if isinstance(text, AgentSpec):
        return text
    if not isinstance(text, str):
        raise AgentSpecError(f"an agent spec is text such as 'rule' or 'pimc:samples=32', got {excerpt(text)}")
    if len(text) > MAX_SPEC_LENGTH:
        raise AgentSpecError(f"agent spec {excerpt(text)} is longer than {MAX_SPEC_LENGTH} characters")
    spec = text.strip()
    if not spec:
        raise AgentSpecError(f"an agent spec is non-empty text, one of: {', '.join(k.usage() for k in KINDS.values())}")
    name, colon, rest = spec.partition(":")
    name = ALIASES.get(name.strip(), name.strip())
    if name not in KINDS:
        raise AgentSpecError(_unknown_kind(name))
    declared = KINDS[name]
    items = [item.strip() for item in rest.split(",")] if colon else []
    if any(not item for item in items):
        raise AgentSpecError(f"agent spec {excerpt(text)}: an empty item after the colon or between commas; "
                             f"write it {declared.usage()}")
    argument = None
    arg = declared.argument
    if arg is not None and items:
        first_key = items[0].partition("=")[0].strip() if "=" in items[0] else None
        if arg.required or first_key not in declared.option_names:
            argument = items.pop(0)
    options = []
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise AgentSpecError(f"agent spec {excerpt(text)}: expected KEY=VALUE, got {excerpt(item)}; "
                                 f"write it {declared.usage()}")
        if key not in declared.option_names:
            raise AgentSpecError(f"agent spec {excerpt(text)}: "
                                 f"{unknown_name(name, key, declared.option_names, 'option')}")
        if any(key == k for k, _ in options):
            raise AgentSpecError(f"agent spec {excerpt(text)}: option {key} is given twice; give it once")
        try:
            options.append((key, declared.option(key).parse(value)))
        except OptionError as e:
            raise AgentSpecError(f"agent spec {excerpt(text)}: {name} option {e}") from None
    try:
        return AgentSpec(name, argument, tuple(options))
    except AgentSpecError as e:
        raise AgentSpecError(f"agent spec {excerpt(text)}: {e}") from None


def kind(name: str) -> AgentKind:
    """The declaration of kind ``name`` or of an alias of it (AgentSpecError naming the nearest kind otherwise)."""
    name = ALIASES.get(name, name)
    if name not in KINDS:
        raise AgentSpecError(_unknown_kind(name))
    return KINDS[name]


# ---------------------------------------------------------------- the kinds: adding one is one entry here
def _seed() -> Option:
    return Option("seed", int, None, "the seed when the harness gives none (it gives one per deal)",
                  minimum=0, maximum=MAX_SEED, optional=True)


def _shipped_baselines() -> Path:
    from ..baselines import DIR
    return DIR


_REGISTRY = "vint_env.agents.registry"

KINDS: dict[str, AgentKind] = {k.name: k for k in (
    AgentKind("random", "uniform over the legal actions, from its own seeded generator", f"{_REGISTRY}:make_random"),
    AgentKind("rule", "the game's rule bot: the bidding and play advice of the rule books", f"{_REGISTRY}:make_rule"),
    AgentKind("dd", "double-dummy reference: it sees every hand (cheats)", f"{_REGISTRY}:make_dd",
              games="Vint, Whist, two-player Vint"),
    AgentKind("pimc", "sampled deals of the hidden cards, each solved double-dummy; the best mean score",
              f"{_REGISTRY}:make_pimc", games="Vint, Whist, two-player Vint", time_option="time", options=(
                  Option("samples", int, 12, "deals sampled and solved per decision", minimum=1, maximum=1000),
                  Option("time", float, None, "seconds a decision may take: sampling stops when they are spent "
                         "(at least one sample)", minimum=0.0, exclusive_minimum=True, maximum=600.0, optional=True),
                  Option("auction", bool, False, "Vint: a suit a player bid is at least four cards long in their hand"),
                  Option("bid", str, "rule", "Vint auction: the rule bot's calls, or raises chosen by sampled "
                         "double-dummy scores", allowed=("rule", "dd")),
                  _seed())),
    AgentKind("search", "PIMC's sampled deals weighted by how likely the others' calls and cards were in them under "
              "a shipped network, solved double-dummy (or rolled out by the network); the shipped agent's card kept "
              "unless the search finds a better one by a margin", "vint_env.agents.search.search:make_search",
              extra="train", games="Whist, Vint", time_option="time", options=(
                  Option("samples", int, 12, "deals solved per decision (drawn from the beliefs)",
                         minimum=1, maximum=1000),
                  Option("first_samples", int, None, "deals solved per decision in the first trick, where solving "
                         "costs most and the others' play has said least (default: the game's, 6 in Whist, 8 in "
                         "Vint)", minimum=1, maximum=1000, optional=True),
                  Option("late_samples", int, None, "deals solved per decision from the fifth trick on, where a "
                         "deal costs a small share of one in the first trick (default: the game's, 36 in Whist; "
                         "in Vint samples)", minimum=1, maximum=1000, optional=True),
                  Option("candidates", int, None, "deals drawn uniformly and weighted by the others' play per "
                         "decision (beliefs=weighted; default: the game's, 40 in Whist, 24 in Vint)",
                         minimum=1, maximum=5000, optional=True, web_maximum=1000),
                  Option("beliefs", str, "weighted", "weighted: deals weighted by how likely the others' actions "
                         "were in them; uniform: every consistent deal alike (PIMC's)", allowed=("weighted", "uniform")),
                  Option("blueprint", str, None, "the shipped agent whose card is kept unless the search finds a "
                         "better one, and which makes the calls and forced cards (default: baseline, the shipped "
                         "network; residual: the rule bot corrected by a critic)", allowed=("baseline", "residual"),
                         optional=True),
                  Option("model", str, None, "the shipped agent whose network models the others' play (default: "
                         "the game's first: baseline in Whist, residual in Vint)", allowed=("baseline", "residual"),
                         optional=True),
                  Option("temperature", float, None, "the model's logits are divided by it before the softmax "
                         "(default: the game's, 1)", minimum=0.0, exclusive_minimum=True, maximum=1000.0,
                         optional=True),
                  Option("floor", float, 0.1, "each modelled probability is mixed with the uniform choice among "
                         "the seat's legal actions by this share", minimum=0.0, maximum=1.0),
                  Option("tau", float, 0.5, "the likelihood is raised to this power (1: the model trusted fully)",
                         minimum=0.0, maximum=1.0),
                  Option("eval", str, "dd", "how a card is valued in a deal: dd, all four then play "
                         "double-dummy; rollout, all four then play as the blueprint's network plays",
                         allowed=("dd", "rollout")),
                  Option("margin", float, None, "points a deal by which the search's best card must beat the "
                         "shipped agent's to be played (default: the game's, 0)", minimum=0.0, maximum=MAX_POINTS,
                         optional=True),
                  Option("time", float, None, "seconds a decision may take: deals are valued in turn until they "
                         "are spent (at least one)", minimum=0.0, exclusive_minimum=True, maximum=600.0,
                         optional=True),
                  _seed())),
    AgentKind("network", "a trained network from its checkpoint: PPO's, a clone's, a distilled one (ppo:PATH is "
              "the same)", f"{_REGISTRY}:make_network", extra="train", aliases=("ppo",),
              argument=Argument("PATH", "the checkpoint file", path="file")),
    AgentKind("baseline", "the trained agent shipped for the game (or DIR's)", f"{_REGISTRY}:make_baseline",
              extra="train", argument=Argument("DIR", "a folder of <game>.pt and <game>.json (default: the "
                                               "shipped baselines)", required=False, path="folder",
                                               default_path=_shipped_baselines)),
    AgentKind("residual", "the game's rule bot corrected by a shipped critic network (or DIR's)",
              f"{_REGISTRY}:make_residual", extra="train",
              argument=Argument("DIR", "a folder of <game>_residual.pt or <game>.pt and its manifest (default: the "
                                "shipped baselines)", required=False, path="folder", default_path=_shipped_baselines)),
    AgentKind("bidder", "a Vint auction learnt from its calls' outcomes, with the rule bot's or its own cards",
              "vint_env.agents.learned.bidder:make_bidder", extra="train", games="Vint",
              argument=Argument("PATH", "the bidder checkpoint file", path="file"), options=(
                  Option("cards", str, None, "who plays the cards: the rule bot, or the checkpoint's card network "
                         "(default: as the checkpoint says)", allowed=("rule", "network"), optional=True),
                  Option("margin", float, None, "points a bid must be worth above passing (default: the "
                         "checkpoint's)", minimum=0.0, maximum=MAX_POINTS, optional=True))),
    AgentKind("human", "you, at the terminal", f"{_REGISTRY}:make_human", web=False),
    AgentKind("openspiel", "OpenSpiel's information-set MCTS with random rollouts",
              "vint_env.wrappers.openspiel_agent:make_agent", extra="openspiel", web=False,
              games="deal episodes; two-player Vint in ways 1 and 4",
              argument=Argument("BOT", "the OpenSpiel bot", allowed=("ismcts",)), options=(
                  Option("sims", int, 100, "simulations per decision", minimum=1, maximum=100_000),
                  Option("worlds", int, 0, "resampled deals kept per decision and reused (0: a new one per "
                         "simulation)", minimum=0, maximum=100_000),
                  Option("rollouts", int, 1, "random rollouts per leaf", minimum=1, maximum=100),
                  Option("uct", float, 2.0, "the UCT constant, in units of the env's default scaled reward",
                         minimum=0.0, exclusive_minimum=True, maximum=1e6),
                  _seed())),
    AgentKind("program", "a bot in any language: a program that plays over stdin/stdout in JSON lines",
              "vint_env.agents.program:make_program", web=False, runs_code=True, time_option="time",
              argument=Argument("PATH", "the executable file to run", path="file"), options=(
                  Option("time", float, 10.0, "seconds a decision may take (then BotTimeout)",
                         minimum=0.0, exclusive_minimum=True, maximum=600.0),
                  Option("start", float, 30.0, "seconds the program may take to start and answer hello",
                         minimum=0.0, exclusive_minimum=True, maximum=600.0),
                  Option("args", str, "", "the program's arguments, separated by blanks (shell quoting)",
                         words=True))),
    AgentKind("py", "your own agent: NAME(game=...) from an importable module", f"{_REGISTRY}:make_py",
              web=False, runs_code=True, argument=Argument("MODULE:NAME", "a module and its agent factory",
                                                           path="module")),
)}
#: The other names of the kinds (``ppo`` -> ``network``), each read as its kind's own name.
ALIASES: dict[str, str] = {alias: k.name for k in KINDS.values() for alias in k.aliases}


def kinds_table(web_only: bool = False) -> str:
    """Every kind with its options, as the docs' table and ``vint-eval agents`` show it (Markdown)."""
    rows = ["| spec | agent | options |", "|---|---|---|"]
    for k in KINDS.values():
        if web_only and not k.web:
            continue
        opts = []
        if k.argument is not None:
            opts.append(f"`{k.argument.name}`: {k.argument.doc}" + ("" if k.argument.required else " (optional)"))
        for o in k.options:
            default = _format(o.default) if o.default is not None else "none"
            opts.append(f"`{o.name}`: {o.doc} ({describe(o)}; default {default})")
        notes = [k.games] if k.games != "every game" else []
        if k.extra:
            notes.append(f"needs the `{k.extra}` extra")
        if not k.web:
            notes.append("never from a `vint-serve` request")
        doc = k.doc + (f" ({'; '.join(notes)})" if notes else "")
        cells = [c.replace("<", "&lt;").replace(">", "&gt;") for c in (doc, "<br>".join(opts))]
        rows.append(f"| `{k.usage()}` | {cells[0]} | {cells[1].replace('&lt;br&gt;', '<br>')} |")
    return "\n".join(rows)


def kinds_listing() -> str:
    """Every kind with its argument and options, as plain text (``vint-eval agents``)."""
    import textwrap
    lines = ["Agent specs: KIND, or KIND:ITEM,ITEM,... (the argument first, then KEY=VALUE options).", ""]
    for k in KINDS.values():
        notes = [k.games] if k.games != "every game" else []
        if k.extra:
            notes.append(f"needs the {k.extra} extra")
        if not k.web:
            notes.append("never from a vint-serve request")
        lines.append(f"{k.usage()}")
        lines += textwrap.wrap(k.doc + (f" ({'; '.join(notes)})" if notes else ""), 100,
                               initial_indent="    ", subsequent_indent="    ")
        if k.argument is not None:
            lines += textwrap.wrap(f"{k.argument.name}: {k.argument.doc}"
                                   + ("" if k.argument.required else " (optional)"), 100,
                                   initial_indent="    ", subsequent_indent="      ")
        for o in k.options:
            default = _format(o.default) if o.default is not None else "none"
            lines += textwrap.wrap(f"{o.name}: {o.doc} ({describe(o)}; default {default})", 100,
                                   initial_indent="    ", subsequent_indent="      ")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
