"""One grammar for agent specs (issue 31 item 6): every kind declared once, parsed once, every option bounded."""

from __future__ import annotations

import math

import pytest

from vint_env.agents.registry import SPECS, load_agent, short_spec
from vint_env.agents.search.pimc import PIMCAgent
from vint_env.agents.spec import ALIASES, KINDS, AgentSpec, AgentSpecError, kind, kinds_table, parse_spec


def test_a_spec_is_parsed_into_kind_argument_and_options():
    spec = parse_spec("pimc:time=0.5,samples=32")
    assert (spec.kind, spec.argument, spec.given) == ("pimc", None, {"samples": 32, "time": 0.5})
    assert spec.option("auction") is False and spec.option("bid") == "rule"
    assert str(spec) == "pimc:samples=32,time=0.5"
    bidder = parse_spec("bidder:runs/b.pt,margin=5,cards=rule")
    assert (bidder.kind, bidder.argument, bidder.given) == ("bidder", "runs/b.pt", {"cards": "rule", "margin": 5.0})
    assert parse_spec("openspiel:ismcts,sims=300").given == {"sims": 300}
    assert parse_spec("py:my.module:make").argument == "my.module:make"
    assert parse_spec("baseline").argument is None and parse_spec("baseline:mine").argument == "mine"
    assert parse_spec(spec) is spec


@pytest.mark.parametrize("text", ["random", "rule", "dd", "human", "pimc", "pimc:samples=1", "pimc:auction=1,bid=dd",
                                  "pimc:seed=0,time=600", "network:a/b.pt", "baseline", "residual:x", "bidder:b.pt",
                                  "bidder:b.pt,cards=network,margin=0.5", "openspiel:ismcts",
                                  "openspiel:ismcts,uct=0.25,worlds=0", "py:m:f"])
def test_the_text_of_a_spec_reads_back_to_the_same_spec(text):
    spec = parse_spec(text)
    assert parse_spec(str(spec)) == spec
    assert AgentSpec(spec.kind, spec.argument, spec.options) == spec


@pytest.mark.parametrize("text, words", [
    ("pimc:samples=3,samples=4", "option samples is given twice"),
    ("pimc:samles=3", "unknown option 'samles' (did you mean 'samples'?)"),
    ("pimc:samples=99999999999999999", "pimc option samples must be a positive integer (at most 1000), "
                                       "got 99999999999999999"),
    ("pimc:samples=0", "samples must be a positive integer"),
    ("pimc:time=inf", "pimc option time must be a finite positive number (at most 600)"),
    ("pimc:time=nan", "pimc option time must be"),
    ("pimc:time=0", "pimc option time must be"),
    ("pimc:seed=-1", "pimc option seed must be an integer >= 0"),
    ("pimc:bid=best", "pimc option bid must be one of ('rule', 'dd')"),
    ("pimc:auction=yes", "pimc option auction must be True or False"),
    ("openspiel:ismcts,sims=99999999999", "openspiel option sims must be a positive integer (at most 100000)"),
    ("openspiel:ismcts,uct=inf", "openspiel option uct must be"),
    ("openspiel:mcts", "BOT must be one of ismcts"),
    ("bidder:b.pt,margin=-1", "bidder option margin must be a number >= 0"),
    ("bidder:b.pt,cards=human", "bidder option cards must be one of ('rule', 'network')"),
    ("bidder", "needs its PATH"), ("network", "needs its PATH"),
    ("network:a.pt,cards=rule", "network: unknown option 'cards'"),
    ("rule:x", "expected KEY=VALUE, got 'x'"), ("rule:samples=3", "rule: unknown option 'samples'"),
    ("pimc:", "an empty item"), ("pimc:samples=3,", "an empty item"), ("pimc:32", "expected KEY=VALUE"),
    ("alphazero", "unknown kind 'alphazero'"), ("pmic", "unknown kind 'pmic' (did you mean 'pimc'?)"),
    ("", "non-empty"), ("   ", "non-empty"), ("pimc:samples=" + "9" * 4000, "at most 1000"),
])
def test_a_bad_spec_is_an_error_naming_what_is_wrong(text, words):
    with pytest.raises(AgentSpecError) as info:
        parse_spec(text)
    assert words in str(info.value)
    assert len(str(info.value)) < 1000               # a bounded excerpt of the text, never all of it


def test_a_spec_that_is_not_text_or_too_long_is_refused():
    for value in (None, 3, ["rule"], b"rule"):
        with pytest.raises(AgentSpecError, match="an agent spec is text"):
            parse_spec(value)
    with pytest.raises(AgentSpecError, match="longer than") as info:
        parse_spec("network:" + "a" * 100_000)
    assert len(str(info.value)) < 300


def test_blanks_around_a_spec_are_dropped_before_anything_is_decided():
    """A guard on the raw text is a bypass: " py:this:x" is a py spec, and the parsed value says so."""
    for text in (" py:this:x", "\tpy:this:x", "py:this:x\n", " py :this:x"):
        assert parse_spec(text).kind == "py" and parse_spec(text).declaration.runs_code
    assert parse_spec(" pimc: samples = 3 ").given == {"samples": 3}


def test_a_spec_made_directly_is_checked_as_a_parsed_one():
    with pytest.raises(AgentSpecError, match="samples must be a positive integer"):
        AgentSpec("pimc", None, (("samples", 10**12),))
    with pytest.raises(AgentSpecError, match="takes no argument"):
        AgentSpec("rule", "x")
    with pytest.raises(AgentSpecError, match="without commas"):
        AgentSpec("network", "a.pt,samples=3")
    with pytest.raises(AgentSpecError, match="unknown kind"):
        AgentSpec("nope")
    assert AgentSpec("pimc", None, (("time", None),)).given == {}        # None: left to the default


def test_the_agent_constructors_check_the_declared_ranges_too():
    """A direct construction is bounded as a spec is: no way round the declarations."""
    for kwargs in ({"samples": 99_999_999_999_999_999}, {"samples": 0}, {"time": math.inf}, {"time": -1.0},
                   {"seed": -1}, {"bid": "best"}):
        with pytest.raises(ValueError, match="pimc option"):
            PIMCAgent("whist", **kwargs)


def test_every_numeric_option_of_every_kind_has_a_declared_range():
    for declared in KINDS.values():
        for o in declared.options:
            assert o.doc and "\n" not in o.doc
            if o.type in (int, float):
                assert o.minimum is not None and o.maximum is not None, f"{declared.name} option {o.name}"
                assert o.check(o.default) == o.default if o.default is not None else o.optional


def test_what_a_kind_may_do_is_declared_with_it():
    assert {k for k, d in KINDS.items() if d.runs_code} == {"py", "program"}
    assert not any(d.web for d in KINDS.values() if d.runs_code)
    assert {k for k, d in KINDS.items() if not d.web} >= {"py", "human", "openspiel"}
    paths = {k: d.argument.path for k, d in KINDS.items() if d.argument is not None and d.argument.path}
    assert paths == {"network": "file", "bidder": "file", "baseline": "folder", "residual": "folder",
                     "program": "file", "py": "module"}
    with pytest.raises(ValueError, match="runs code"):
        type(KINDS["py"])("evil", "x", "m:f", runs_code=True)


def test_the_files_a_spec_reads_come_from_its_parsed_value(tmp_path):
    assert parse_spec("network:a/b.pt").paths()[0][1:] == (__import__("pathlib").Path("a/b.pt"), "file")
    assert parse_spec("bidder:b.pt,cards=rule").paths()[0][1].name == "b.pt"
    [(_, shipped, kind)] = parse_spec("baseline").paths()
    assert kind == "folder" and (shipped / "whist.pt").is_file()
    assert parse_spec("baseline").paths(defaults=False) == []
    assert parse_spec("pimc:samples=3").paths() == [] and parse_spec("rule").paths() == []


def test_the_listing_names_every_kind_and_option():
    table = kinds_table()
    for declared in KINDS.values():
        assert f"`{declared.usage()}`" in table
        for o in declared.options:
            assert f"`{o.name}`" in table
    assert SPECS == tuple(d.usage() for d in KINDS.values())
    assert "py:MODULE:NAME" not in kinds_table(web_only=True)


def test_ppo_is_an_alias_of_the_network_kind_read_as_network():
    """The network agent kind is named for what it loads (any network checkpoint); ``ppo:PATH`` stays its alias."""
    assert ALIASES == {"ppo": "network"} and "ppo" not in KINDS
    for text in ("ppo:runs/a.pt", " ppo :runs/a.pt", "network:runs/a.pt"):
        spec = parse_spec(text)
        assert (spec.kind, spec.argument, str(spec)) == ("network", "runs/a.pt", "network:runs/a.pt")
    assert AgentSpec("ppo", "a.pt") == parse_spec("network:a.pt") and kind("ppo") is KINDS["network"]
    assert short_spec("ppo:runs/quick/checkpoints/latest.pt") == "network:quick/latest.pt"
    with pytest.raises(AgentSpecError, match="needs its PATH"):
        parse_spec("ppo")
    assert "ppo:PATH is the same" in kinds_table()


def test_labels_and_loading_take_the_parsed_spec():
    assert short_spec(parse_spec("network:runs/quick/checkpoints/latest.pt")) == "network:quick/latest.pt"
    assert short_spec("  pimc:samples=3 ") == "pimc:samples=3"
    agent = load_agent(parse_spec("pimc:samples=5"), game="whist", seed=2)
    assert agent.samples == 5


# ---------------------------------------------------------------- fuzz: spec strings of every kind
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(max_examples=100, deadline=None)
_VALUES = st.one_of(st.integers(-2**70, 2**70).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                    st.sampled_from(["0", "1", "rule", "dd", "network", "none", "None", "true", "", " 3 ", "1e309",
                                     "٣", "+5", "-0", "9" * 80, "x=y", "ismcts"]),
                    st.text(max_size=12))


@st.composite
def _spec_texts(draw):
    """Spec texts built from the declarations: a kind, maybe its argument, options right and wrong."""
    declared = draw(st.sampled_from(list(KINDS.values())))
    items = []
    if declared.argument is not None and draw(st.booleans()):
        items.append(draw(st.sampled_from(list(declared.argument.allowed or ()) + ["a/b.pt", "mod:f", " x ", ""])
                          | st.text(max_size=10)))
    names = list(declared.option_names) + ["bogus", "seed", "samples", ""]
    for _ in range(draw(st.integers(0, 4))):
        items.append(f"{draw(st.sampled_from(names))}={draw(_VALUES)}")
    blank = draw(st.sampled_from(["", " ", "\t", "\n"]))
    return blank + declared.name + (":" + ",".join(items) if items or draw(st.booleans()) else "")


def _check_parsed(spec):
    assert parse_spec(str(spec)) == spec                      # the text reads back to the same spec
    declared = spec.declaration
    for name, value in spec.options:
        option = declared.option(name)
        assert value is not None and option.check(value) == value
        if option.type in (int, float) and not isinstance(value, bool):
            assert math.isfinite(value) and option.minimum <= value <= option.maximum


@FUZZ
@given(text=_spec_texts())
def test_fuzzed_specs_of_every_kind_parse_to_bounded_values_or_a_named_error(text):
    try:
        spec = parse_spec(text)
    except AgentSpecError as e:
        assert str(e) and len(str(e)) < 2000
        return
    _check_parsed(spec)


@FUZZ
@given(text=st.text(max_size=60) | st.from_regex(r"[a-z]{1,9}(:[a-z0-9=.,:/ ]{0,30})?", fullmatch=True))
def test_any_text_is_a_spec_or_an_agent_spec_error(text):
    try:
        spec = parse_spec(text)
    except AgentSpecError as e:
        assert str(e) and len(str(e)) < 2000
        return
    _check_parsed(spec)
