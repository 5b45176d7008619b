"""``parlour train-ntuple``'s flags are derived from ``NTupleSettings``: every setting has
its flag, a new field would get one, and a bad value gets the settings' own error."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from parlour.cli import build_parser, main
from parlour.training.backends.ntuple import NTupleSettings
from parlour.training.config import make_config


def parse(*args: str) -> argparse.Namespace:
    return build_parser().parse_args(["train-ntuple", "--out", "x", *args])


def test_every_ntuple_setting_has_its_flag():
    """Each field of ``NTupleSettings`` (a new one too) is a flag that sets it."""
    from parlour.cli.train import ntuple_settings_given

    for field in dataclasses.fields(NTupleSettings):
        flag, default = "--" + field.name.replace("_", "-"), NTupleSettings.defaults()[field.name]
        forms = [[flag], ["--no-" + flag[2:]]] if isinstance(default, bool) else [[flag, "windows" if default == "" else str(default)]]
        for words in forms:
            (given,) = ntuple_settings_given(parse(*words)).overrides
            assert given.key == f"ntuple.{field.name}" and given.source == " ".join(words), (given, words)


def test_the_flags_give_the_settings_and_only_those_given():
    from parlour.cli.train import ntuple_settings_given

    args = parse("--depth", "3", "--no-teacher", "--l2", "0.001", "--gate-threshold", "0.6")
    given = ntuple_settings_given(args)
    assert {(item.key, item.value, item.source) for item in given.overrides} == {
        ("ntuple.depth", 3, "--depth 3"), ("ntuple.teacher", False, "--no-teacher"), ("ntuple.l2", 0.001, "--l2 0.001"),
        ("ntuple.gate_threshold", 0.6, "--gate-threshold 0.6")}
    settings: dict = {}
    given.apply(settings)
    config = make_config(settings)
    assert config.algo == "ntuple" and config.ntuple == {**NTupleSettings.defaults(), "depth": 3, "teacher": False, "l2": 0.001,
                                                         "gate_threshold": 0.6}


@pytest.mark.parametrize(("args", "message"), [
    (["--lam", "2"], "ntuple.lam must be in [0, 1], got 2.0"),
    (["--gate-threshold", "1.5"], "ntuple.gate_threshold must be in [0, 1], got 1.5"),
    (["--workers", "0"], "ntuple.workers must be at least 1, got 0"),
    (["--l2", "-1"], "ntuple.l2 must be at least 0, got -1.0"),
    (["--depth", "0"], "ntuple.depth must be at least 1, got 0"),
])
def test_a_bad_value_gets_the_settings_own_error(args, message, tmp_path, capsys):
    assert main(["train-ntuple", "--out", str(tmp_path / "run"), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "run").exists()
