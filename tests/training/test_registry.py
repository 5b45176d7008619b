"""The training registry: every backend declares its algo, where it runs and its
settings, and the configuration's tables, the valid pairs, the ``--set`` names, the
command line's choices and the docs' settings tables agree with it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parlour import toml_read
from parlour.training import registry
from parlour.training.backends.alphazero.backend import AlphaZeroBackend, AlphaZeroSettings
from parlour.training.config import make_config, merge, parse_override
from parlour.training.settings import Given, SettingsGiven

ROOT = Path(__file__).resolve().parents[2]


def test_the_built_in_backends_and_their_pairs():
    assert registry.pairs() == [("ppo", "local"), ("alphazero", "local"), ("alphazero", "ray"), ("ppo", "rllib"),
                                ("ntuple", "local")]
    assert registry.algos() == ("ppo", "alphazero", "ntuple")
    assert list(registry.tables()) == ["ppo", "alphazero", "rllib", "ntuple"]
    assert registry.address_settings() == ("alphazero.address", "rllib.address")
    assert registry.address_setting("alphazero", "ray") == "alphazero.address"
    assert registry.address_setting("alphazero", "local") is None


def test_set_names_are_the_settings_of_the_tables():
    assert "alphazero.workers" in registry.settings_names() and "ntuple.features" in registry.settings_names()
    settings: dict = {"algo": "alphazero"}
    merge(settings, *parse_override("alphazero.workers=2"))
    assert make_config(settings).alphazero["workers"] == 2
    given = SettingsGiven(overrides=(Given("alphazero.workers", 2, "--set alphazero.workers=2"),))
    settings = {"algo": "alphazero"}
    assert given.apply(settings) == {"alphazero.workers": "--set alphazero.workers=2"}
    assert make_config(settings).to_dict()["alphazero"]["workers"] == 2
    with pytest.raises(ValueError, match=r"unknown alphazero setting\(s\) \['wrokers'\]"):
        make_config({"alphazero": {"wrokers": 2}})


def test_settings_are_checked_by_their_bounds():
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        AlphaZeroSettings(workers=0)
    with pytest.raises(ValueError, match=r"alphazero.rollout_mix must be in \[0, 1\], got 2.0"):
        make_config({"algo": "alphazero", "alphazero": {"rollout_mix": 2}})
    with pytest.raises(ValueError, match="alphazero.learning_rate must be positive, got -1.0"):
        make_config({"algo": "alphazero", "alphazero": {"learning_rate": -1}})


def test_a_pair_is_taken_once():
    class Twin(AlphaZeroBackend):
        runs_on = ("ray",)

    with pytest.raises(ValueError, match=r"algo 'alphazero' on \['ray'\] is already AlphaZeroBackend's"):
        registry.register(Twin)
    assert Twin not in registry.backends()


def test_the_old_backend_name_sb3_is_read_as_local():
    assert make_config({"backend": "sb3"}).backend == "local"
    assert make_config({"algo": "alphazero", "backend": "sb3"}).backend == "local"


@pytest.mark.parametrize("card", sorted((ROOT / "parlour" / "zoo" / "models").glob("*.json")), ids=lambda path: path.stem)
def test_a_zoo_card_says_sb3_and_its_configuration_loads(card):
    config = json.loads(card.read_text())["config"]
    assert config["backend"] in ("sb3", "local")
    assert make_config(config).backend == "local"


def doc_tables() -> dict[str, list[tuple[str, str]]]:
    """Every table of the docs headed ``| `NAME.` setting | default | meaning |``:
    its rows' names and defaults, one pair per setting named."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((ROOT / "docs").glob("*.md")):
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            head = re.fullmatch(r"\| `(\w+)\.` setting \| default \| meaning \|", line)
            if not head:
                continue
            assert head[1] not in found, f"two tables of [{head[1]}] in the docs"
            rows = found.setdefault(head[1], [])
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                names, defaults = (cell.strip() for cell in row.strip("|").split("|")[:2])
                names_ = re.findall(r"`(\w+)`", names)
                values = [value.strip() for value in defaults.split(", ")] if len(names_) > 1 else [defaults]
                assert len(values) == len(names_), f"{path.name}: {row}"
                rows.extend(zip(names_, values))
    return found


def doc_value(text: str):
    text = text.strip("`")
    if text in ("empty", '""'):
        return ""
    try:
        return toml_read.loads(f"v = {text}")["v"]
    except toml_read.TOMLDecodeError:
        return text


def test_the_docs_settings_tables_are_the_registry():
    tables = doc_tables()
    assert sorted(tables) == sorted(registry.tables())
    for name, settings in registry.tables().items():
        documented = dict(tables[name])
        defaults = settings.defaults()
        assert list(documented) == [key for key in documented if key in defaults], f"[{name}]: unknown {set(documented) - set(defaults)}"
        assert sorted(documented) == sorted(defaults), f"[{name}]: undocumented {sorted(set(defaults) - set(documented))}"
        for key, value in documented.items():
            if defaults[key] is None:  # resolved for the run
                assert value.startswith("auto"), f"{name}.{key}: the docs say {value}, the default is auto (None)"
                continue
            assert doc_value(value) == pytest.approx(defaults[key]) if isinstance(defaults[key], float) else \
                doc_value(value) == defaults[key], f"{name}.{key}: the docs say {value}, the default is {defaults[key]!r}"
