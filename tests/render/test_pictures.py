"""The games' pictures (``parlour.render``): one drawing gives well-formed SVG and an RGB
array of the drawing's size; each picture shows what its game's position holds (values,
whose turn, the last move marked) and, drawn for a seat, nothing that seat may not see;
and a short video of every game records through Gymnasium's ``RecordVideo``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from parlour.games import GAMES, load_game
from parlour.render import Drawing, has_picture, picture
from parlour.render.drawing import hex_colour
from parlour.render.style import HIGHLIGHT

pytest.importorskip("PIL", reason="rasterising needs Pillow (the render extra)")

SVG = "{http://www.w3.org/2000/svg}"


def texts(drawing: Drawing) -> list[str]:
    root = ET.fromstring(drawing.svg())
    return [node.text or "" for node in root.iter(f"{SVG}text")]


def play(name: str, options: dict, steps: int, seed: int = 0):
    """A state after ``steps`` random moves, and the last move."""
    game = load_game(name, **options)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    last = None
    for _ in range(steps):
        players = state.current_players()
        if not players:
            break
        if game.simultaneous:
            last = {p: int(rng.choice(state.legal_actions(p))) for p in players}
        else:
            last = (players[0], int(rng.choice(state.legal_actions(players[0]))))
        state.apply(last if game.simultaneous else last[1])
    return state, last


def test_a_drawing_is_svg_and_pixels():
    d = Drawing(120, 80, background=(10, 20, 30))
    d.rect(10, 10, 50, 30, fill=(255, 0, 0), stroke=(0, 0, 0), radius=3).circle(90, 40, 15, fill=(0, 255, 0))
    d.line(0, 79, 119, 79, stroke=(0, 0, 255), width=2).polygon([(70, 5), (80, 20), (60, 20)], fill=(255, 255, 0))
    d.text(60, 60, "a < b & c", size=12, anchor="middle", bold=True)
    root = ET.fromstring(d.svg())
    assert root.get("width") == "120" and [n.text for n in root.iter(f"{SVG}text")] == ["a < b & c"]
    image = d.rgb()
    assert image.dtype == np.uint8 and image.shape == (80, 120, 3)
    assert tuple(image[25, 35]) == (255, 0, 0) and tuple(image[40, 90]) == (0, 255, 0) and tuple(image[2, 2]) == (10, 20, 30)
    assert np.array_equal(image, d.rgb())  # the same picture, the same pixels
    with pytest.raises(ValueError, match="anchor must be one of"):
        d.text(0, 0, "x", anchor="left")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_picture_of_its_position(name):
    assert has_picture(name)
    start, _ = play(name, {}, 0)
    later, last = play(name, {}, 6)
    before, after = picture(start), picture(later, last=last)
    assert "player_0" in " ".join(texts(after)) and ET.fromstring(after.svg()) is not None
    a, b = before.rgb(), after.rgb()
    assert a.shape == (before.height, before.width, 3) and b.shape == a.shape and not np.array_equal(a, b)
    assert min(a.shape[:2]) >= 180  # big enough to read in a recorded video
    with pytest.raises(ValueError, match="no seat"):
        picture(start, seat=9)


def test_goofspiel_shows_the_prize_the_hands_and_the_last_bids():
    game = load_game("goofspiel", num_cards=5, prize_order="descending")
    state = game.new_initial_state()
    state.apply({0: 4, 1: 1})  # 5 against 2 for the prize 5
    words = texts(picture(state))
    assert "4" in words and "won 5" in words  # the prize of round 2 is 4; player_0 won the 5
    assert words.count("5") >= 1 and "last bid" in words


def test_hidden_cards_stay_hidden_from_the_seat():
    game = load_game("goofspiel", num_cards=6, imperfect_info=True)
    state = game.new_initial_state(seed=1)
    state.apply({0: 0, 1: 5})
    spectator, mine = texts(picture(state)), texts(picture(state, seat=0))
    assert "?" in mine and "?" not in spectator  # player_1's last bid is hidden from player_0
    assert len([t for t in mine if t.isdigit()]) < len([t for t in spectator if t.isdigit()])
    from parlour.games.bitmask import set_bits
    from parlour.games.tides_of_time import CARDS

    tides = load_game("tides_of_time").new_initial_state(seed=2)  # before the first exchange: hands unknown
    numbers = [str(CARDS[a].number) for a in set_bits(tides.hands[1])]
    assert set(numbers) <= set(texts(picture(tides)))
    assert not set(numbers) & set(texts(picture(tides, seat=0)))  # player_1's hand is face down for player_0
    assert set(numbers) <= set(texts(picture(tides, seat=1)))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_legend_names_who_sits_in_each_seat(name):
    """Given the players, the picture names each seat with who sits in it (the viewing
    seat as "you", a long name cut); without them it names the seats alone, as before."""
    state, _ = play(name, {}, 2)
    seats = state.game.num_players
    players = ["person"] + ["alphabeta"] * (seats - 2) + ["ppo:runs/a-very-long-run-name/best.zip"]
    words = " ".join(texts(picture(state, seat=0, players=players)))
    assert "you" in words and ("alphabeta" in words or seats == 2) and "ppo:runs/a-ve" in words and "…" in words
    assert "best.zip" not in words
    assert "player_1" in words and "person" not in words  # seat 0 is "you" to its viewer
    spectator = " ".join(texts(picture(state, players=players)))
    assert "person" in spectator and "you" not in spectator
    assert "alphabeta" not in " ".join(texts(picture(state))) and "(you)" not in " ".join(texts(picture(state)))
    with pytest.raises(ValueError, match=f"players must name the {seats} seats"):
        picture(state, players=["person"])


def test_the_legends_in_words():
    tribolo = load_game("tribolo", width=8, height=6, walls=2, start_cells=3).new_initial_state(0)
    words = texts(picture(tribolo, seat=0, players=["person", "greedy", "paranoid:depth=2"]))
    assert {"player_0 (you): 3", "player_1 (greedy): 3", "player_2 (paranoid:depth=2): 3"} <= set(words)
    legend = picture(tribolo, seat=0, players=["person", "greedy", "paranoid:depth=2"])
    assert legend.width > 460  # wider than the board alone: the legend fits
    sticks = load_game("sticks", num_sticks=1).new_initial_state()
    assert "1 stick left · player_0 (mcts) to move" in texts(picture(sticks, players=["mcts", "person"], seat=1))
    goofspiel = load_game("goofspiel", num_cards=3, prize_order="descending").new_initial_state()
    goofspiel.apply({0: 0, 1: 2})  # player_1 takes the 3
    words = texts(picture(goofspiel, seat=0, players=["person", "rudimentary"]))
    assert {"you", "rudimentary", "0 points", "3 points"} <= set(words)
    goofspiel.apply({0: 2, 1: 0})  # player_0 takes the 2
    goofspiel.apply({0: 1, 1: 1})  # the 1 is tied
    assert "game over after 3 rounds" in str(goofspiel.info_state(0))
    assert {"2 points", "3 points"} <= set(texts(picture(goofspiel)))
    one = load_game("goofspiel", num_cards=2, prize_order="ascending").new_initial_state()
    one.apply({0: 1, 1: 0})  # player_0 takes the 1
    assert "1 point" in texts(picture(one))


def test_the_last_move_is_marked():
    gold = f'stroke="{hex_colour(HIGHLIGHT)}"'
    state, last = play("tribolo", {"width": 8, "height": 6, "walls": 2, "start_cells": 3}, 3)
    assert gold in picture(state).svg()
    assert gold not in picture(load_game("tribolo", width=8, height=6, walls=2, start_cells=3).new_initial_state(0)).svg()
    sticks, last = play("sticks", {}, 2)
    assert f"player_{last[0]} took {last[1] + 1}" in texts(picture(sticks, last=last))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_short_video_of_every_game_records(name, tmp_path):
    pytest.importorskip("moviepy", reason="recording needs moviepy")
    import gymnasium
    from gymnasium.wrappers import RecordVideo

    import parlour  # noqa: F401  (registers the Gymnasium ids)
    from parlour.registration import gym_id

    env = RecordVideo(gymnasium.make(gym_id(name), render_mode="rgb_array"), str(tmp_path / "videos"), episode_trigger=lambda e: True,
                      disable_logger=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(8):
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
