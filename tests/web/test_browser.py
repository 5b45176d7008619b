"""The page in a real browser (Debian's Chromium through Playwright): whole games of
pick-up sticks and Goofspiel played by clicking the picture, moves of Tribolo, Double
Card (a cell, then the card's orientation) and Tides of Time, the page checked against
the server's game after every move; undo, hint, watch mode; the options offered as
their declarations allow, the legend naming who plays, counts in words; screenshots saved."""

from __future__ import annotations

import re


def start(page, game: str, seats: dict[int, str] | None = None, options: dict[str, str] | None = None, seed: int = 0,
          select: bool = True) -> None:
    if select:  # (not when the page is already set up for the game: choosing it again resets the options)
        page.select_option("#game", game)
    for name, value in (options or {}).items():
        page.fill(f"[data-option={name}]", value)
    for seat, spec in (seats or {}).items():
        page.select_option(f"#seat-{seat}", spec)
    page.fill("#seed", str(seed))
    page.click("#play")
    page.wait_for_selector("#table:not([hidden])")


def session_of(page, live_server):
    """The server's session behind the page (the newest one)."""
    sessions = live_server.app.state.sessions
    with sessions.lock:
        key = next(reversed(sessions.items))
    return sessions.get(key)


def check_page(page, live_server, seat: int = 0) -> dict:
    """The page shows what the server's game holds for ``seat``: the status, the log, and
    exactly the legal moves (as buttons and as highlighted click targets)."""
    view = session_of(page, live_server).view(seat)
    assert page.text_content("#status") == f"{view['game']}: {view['status']}"
    assert page.locator("#log li").count() == len(view["log"])
    buttons = page.locator("#moves button")
    assert sorted(int(a) for a in buttons.evaluate_all("bs => bs.map(b => b.dataset.action)")) == sorted(m["action"] for m in view["moves"])
    shown = set(page.locator("#picture .target.legal").evaluate_all("els => els.map(e => e.dataset.target)"))
    assert shown == {t for m in view["moves"] for t in m["targets"]}
    return view


def click_a_legal_target(page) -> None:
    target = page.locator("#picture .target.legal").first
    target.click()
    if page.is_visible("#chooser"):  # the click names several moves: choose the first
        page.locator("#chooser button").first.click()


def play_to_the_end(page, live_server, limit: int = 200) -> dict:
    view = check_page(page, live_server)
    moves = 0
    while not view["over"]:
        count = page.locator("#log li").count()
        click_a_legal_target(page)
        page.wait_for_function(f"document.querySelectorAll('#log li').length > {count}")
        view = check_page(page, live_server)
        moves += 1
        assert moves < limit
    return view


def test_a_whole_game_of_sticks_by_clicks(page, live_server, tmp_path):
    start(page, "sticks", {1: "optimal"})
    page.screenshot(path=str(tmp_path / "sticks-start.png"))
    view = play_to_the_end(page, live_server)
    assert view["status"].startswith("game over") and page.locator("#moves button").count() == 0
    assert "game over" in page.text_content("#status")
    page.screenshot(path=str(tmp_path / "sticks-end.png"))


def test_a_whole_game_of_goofspiel_by_clicking_cards(page, live_server, tmp_path):
    start(page, "goofspiel", {1: "rudimentary"}, options={"num_cards": "6"})
    view = play_to_the_end(page, live_server)
    assert len(view["log"]) == 6 and set(view["log"][0]["moves"]) == {"player_0", "player_1"}
    page.screenshot(path=str(tmp_path / "goofspiel.png"))


def test_moves_in_tribolo_by_clicking_cells(page, live_server, tmp_path):
    start(page, "tribolo", {1: "greedy", 2: "random"}, options={"width": "8", "height": "6", "walls": "2", "start_cells": "3"})
    for _ in range(3):
        view = check_page(page, live_server)
        if view["over"] or not view["moves"]:
            break
        count = page.locator("#log li").count()
        page.locator("#picture .target.legal").first.click()
        page.wait_for_function(f"document.querySelectorAll('#log li').length > {count}")
    check_page(page, live_server)
    page.screenshot(path=str(tmp_path / "tribolo.png"))


def test_double_card_placements_are_chosen_by_a_cell_then_an_orientation(page, live_server, tmp_path):
    start(page, "double_card", {1: "random"})
    view = check_page(page, live_server)
    page.locator('#picture [data-target="cell-0"]').first.click()  # A 1: several cards fit there
    page.wait_for_selector("#chooser:not([hidden])")
    offered = page.locator("#chooser button").all_text_contents()
    expected = [m["text"] for m in view["moves"] if "cell-0" in m["targets"]]
    assert offered == expected and len(offered) > 1
    page.locator("#chooser button").nth(2).click()
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")
    after = check_page(page, live_server)
    assert after["log"][0]["moves"]["player_0"] == expected[2]
    page.screenshot(path=str(tmp_path / "double_card.png"))


def test_tides_of_time_picks_by_clicking_a_card(page, live_server, tmp_path):
    start(page, "tides_of_time", {1: "greedy"})
    view = check_page(page, live_server)
    page.locator("#picture .target.legal").first.click()
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1")
    after = check_page(page, live_server)
    assert after["log"][0]["moves"]["player_0"] == view["moves"][0]["text"]
    page.screenshot(path=str(tmp_path / "tides_of_time.png"))


def test_an_illegal_move_is_refused_with_the_reason(page, live_server):
    start(page, "sticks", {1: "random"})
    key = next(reversed(live_server.app.state.sessions.items))
    page.evaluate(f"fetch('/api/sessions/{key}/move', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, "
                  "body: JSON.stringify({seat: 0, action: 7})}).then(r => r.json()).then(d => { window.refusal = d.error; })")
    page.wait_for_function("window.refusal !== undefined")
    assert "not a legal move" in page.evaluate("window.refusal")
    check_page(page, live_server)


def test_undo_and_hint(page, live_server):
    start(page, "sticks", {1: "random"})
    page.locator("#moves button").first.click()
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")
    page.click("#undo")
    page.wait_for_function("document.querySelectorAll('#log li').length === 0")
    check_page(page, live_server)
    page.click("#hint")
    page.wait_for_function("document.getElementById('hint-text').textContent.length > 0")
    assert re.search(r"would play \d", page.text_content("#hint-text"))


def test_watch_mode_follows_the_policies_to_the_end(page, live_server):
    page.select_option("#game", "tribolo")
    for name, value in {"width": "6", "height": "5", "walls": "2", "start_cells": "2"}.items():
        page.fill(f"[data-option={name}]", value)
    page.evaluate("document.getElementById('speed').value = 100")  # fastest (the control shows once watching)
    page.click("#watch")
    page.wait_for_function("document.getElementById('status').dataset.over === 'true'", timeout=60_000)
    session = session_of(page, live_server)
    assert session.state.is_terminal() and page.locator("#log li").count() == len(session.log)


def test_options_with_a_fixed_set_of_choices_are_selects(page, live_server):
    page.select_option("#game", "goofspiel")
    assert page.eval_on_selector("#option-tie_rule", "e => e.tagName") == "SELECT"
    assert page.locator("#option-tie_rule option").all_text_contents() == ["carry", "discard"]
    assert page.locator("#option-imperfect_info option").all_text_contents() == ["False", "True"]
    assert page.input_value("#option-imperfect_info") == "false"  # the default chosen
    number = page.locator("#option-num_cards")
    assert (number.get_attribute("type"), number.get_attribute("min"), number.get_attribute("max")) == ("number", "1", "1000")
    assert page.eval_on_selector("#option-prize_order", "e => e.type") == "text"  # a word or an order of 1..N
    page.fill("#option-num_players", "3")  # Goofspiel's players: a seat more to fill
    assert page.locator("select[data-seat]").count() == 3
    page.fill("#option-num_players", "")
    assert page.locator("select[data-seat]").count() == 2
    page.select_option("#option-imperfect_info", label="True")
    page.select_option("#option-tie_rule", "\"discard\"")
    start(page, "goofspiel", {1: "random"}, options={"num_cards": "5", "prize_order": "[5,4,3,2,1]"}, select=False)
    config = session_of(page, live_server).game.config
    assert config["imperfect_info"] is True and config["tie_rule"] == "discard" and config["num_cards"] == 5
    assert list(config["prize_order"]) == [5, 4, 3, 2, 1]
    page.click("#new")
    page.select_option("#game", "sticks")
    assert page.locator("#option-misere option").all_text_contents() == ["False", "True"]
    page.select_option("#option-misere", label="False")
    start(page, "sticks", {1: "random"}, select=False)
    assert session_of(page, live_server).game.config["misere"] is False


def test_the_legend_names_who_plays_each_seat(page, live_server):
    start(page, "tribolo", {1: "greedy", 2: "random"}, options={"width": "8", "height": "6", "walls": "2", "start_cells": "3"})
    legend = page.locator("#picture text").all_text_contents()
    assert {"player_0 (you)", "player_1 (greedy)", "player_2 (random)"} <= {t.split(":")[0] for t in legend}
    page.click("#new")
    page.select_option("#game", "sticks")
    page.select_option("#seat-0", "random")
    page.evaluate("document.getElementById('speed').value = 3000")  # slow: the first step is shown for a while
    page.click("#watch")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('sticks')")
    words = " ".join(page.locator("#picture text").all_text_contents())
    assert "player_0 (random)" in words and "player_1 (random)" in words and "you" not in words
    page.click("#pause")


def test_counts_are_in_words(page, live_server):
    """'1 step', not '1 steps': the list of games in play."""
    start(page, "sticks", {0: "random", 1: "person"})  # the policy moves first: one step in
    page.wait_for_function("document.querySelectorAll('#log li').length === 1")
    key = next(reversed(live_server.app.state.sessions.items))
    page.click("#new")
    row = page.locator("#games-in-play li", has=page.locator(f'button[data-id="{key}"]'))
    row.wait_for()
    assert "sticks: random vs person, 1 step, " in row.text_content()
    assert re.search(r"kept \d+ minutes? after", page.text_content("#limits"))
