"""The facts a hint reports: the other moves' values only where the search made them exact."""

from parlour.baselines import make
from parlour.baselines.explain import choice_facts, describe
from parlour.games import load_game


def test_alpha_beta_reports_the_other_moves_values_only_with_the_full_root_window():
    game = load_game("sticks", num_sticks=10)
    state = game.new_initial_state()
    facts = {}
    for window in ("narrow", "full"):
        policy = make("alphabeta", game, root_window=window)
        action = policy.act(state.info_state(state.to_move))
        facts[window] = choice_facts(policy)
        text = describe(facts[window], state, action)
        assert ("other moves" in text) == (window == "full"), text
    assert "root_values" not in facts["narrow"]  # bounds, not values: not shown as values
    minimax = make("minimax", game, memo=False)
    minimax.search(state.clone(), state.to_move)
    assert facts["full"]["root_values"] == minimax.root_values
