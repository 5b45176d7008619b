"""Board-shaped networks: the board CNN is the default network for the games whose
observation is board planes (``BoardPolicy``, a logit from each move's own cell, where the
moves are cells; ``BoardCNN`` under dense heads otherwise), sees the board's layout,
trains, saves and plays."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from gymnasium import spaces

from parlour.baselines import make_from_spec
from parlour.baselines.learned.board_layers import LineBlock, LineConv
from parlour.baselines.learned.board_policy import BoardPolicy, BoardTrunk
from parlour.baselines.learned.network_choice import choose_network
from parlour.baselines.learned.networks import BoardCNN, ppo_policy
from parlour.games import GAMES, load_game
from parlour.training.config import TrainConfig
from parlour.training.run_files import RunFiles
from parlour.training.trainer import Trainer

BOARD_GAMES = {"tribolo", "double_card"}


@pytest.mark.parametrize("name", GAMES)
def test_auto_chooses_the_cnn_for_board_planes_only(name):
    shape = load_game(name).observation_shape
    assert choose_network("auto", shape, name) == ("cnn" if name in BOARD_GAMES else "mlp")
    assert choose_network("mlp", shape, name) == "mlp"
    if name in BOARD_GAMES:
        assert choose_network("cnn", shape, name) == "cnn"
    else:
        with pytest.raises(ValueError, match=rf"{name}'s observation has shape \(\d+,\): use 'mlp'"):
            choose_network("cnn", shape, name)


def test_board_cnn_shapes_and_parameters_shared_over_cells():
    space = spaces.Box(0, 1, (5, 11, 16), dtype=np.float32)
    net = BoardCNN(space, channels=8, blocks=1, head_channels=2, features_dim=32)
    out = net(torch.zeros(3, 5, 11, 16))
    assert out.shape == (3, 32) and net.features_dim == 32
    convolutions = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(convolutions) == 4  # stem, one block of two, head
    assert convolutions[0].weight.shape == (8, 5, 3, 3)  # the same filters on every cell
    with pytest.raises(ValueError, match=r"shape \(channels, rows, columns\), got \(10,\)"):
        BoardCNN(spaces.Box(0, 1, (10,), dtype=np.float32))
    with pytest.raises(ValueError, match="channels must be at least 1, got 0"):
        BoardCNN(space, channels=0)


def test_board_cnn_sees_where_a_piece_is():
    """Unlike a plane mean, the flattened head keeps the layout: the same piece on two
    cells gives two different feature vectors."""
    torch.manual_seed(0)
    net = BoardCNN(spaces.Box(0, 1, (2, 4, 4), dtype=np.float32), channels=4, blocks=1, head_channels=2, features_dim=16)
    a, b = torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 4, 4)
    a[0, 0, 0, 0] = 1
    b[0, 0, 3, 3] = 1
    assert not torch.allclose(net(a), net(b))


@pytest.mark.parametrize("name, options", [("tribolo", {"width": 6, "height": 5, "walls": 2, "start_cells": 2}), ("double_card", {})])
def test_a_board_game_trains_with_the_cnn_by_default(name, options, tmp_path, bfloat16_cpu):
    config = TrainConfig(
        game=name, game_options=options, opponents=["random"], timesteps=128, n_envs=2, eval_every=128,
        eval_games=4, snapshot_every=128, eval_opponents=["random"], cnn_channels=4, cnn_blocks=1,
        ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    )
    trainer = Trainer(config, tmp_path / "run", progress=False, log=lambda _: None)
    assert trainer.network == "cnn"
    trainer.run()
    best = RunFiles(tmp_path / "run").best
    game = load_game(name, **options)
    agent = make_from_spec(f"ppo:{best}", game, seed=0)
    assert isinstance(agent.actor.model.policy, BoardPolicy)  # both games' moves are cells
    assert isinstance(agent.actor.model.policy.features_extractor, BoardTrunk)
    assert config.ppo["vec_env"] == "batched" and config.ppo["cnn_precision"] == "bfloat16"  # auto, kept by the model file
    assert agent.actor.model.policy.features_extractor.precision == "bfloat16"
    state = game.new_initial_state(seed=0)
    (seat,) = state.current_players()
    assert agent.act(state.info_state(seat)) in state.legal_actions(seat)


def test_mlp_on_a_board_game_when_asked(tmp_path):
    config = TrainConfig(game="double_card", network="mlp", opponents=["random"], timesteps=64, n_envs=1, eval_every=64,
                         eval_games=2, eval_opponents=["random"], ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [8]})
    trainer = Trainer(config, tmp_path / "run", progress=False, log=lambda _: None)
    assert trainer.network == "mlp"


def board_policy(shape, actions, blocks=0, shared=True, channels=4):
    policy, kwargs = ppo_policy("cnn", [16], {"channels": channels, "blocks": blocks}, shared=shared,
                                action_planes=actions // (shape[1] * shape[2]))
    assert policy is BoardPolicy
    return BoardPolicy(spaces.Box(0, 1, shape, dtype=np.float32), spaces.Discrete(actions), lambda _: 1e-3, **kwargs)


@pytest.mark.parametrize("shared", [True, False])
def test_board_policy_scores_each_move_from_its_own_cell(shared):
    """With no residual block the trunk sees one cell around: a piece on (row 2, column 3)
    may change the logits of the moves on the nine cells around it (all of them, unless
    a unit is dead there), changes those on its own cell, of every kind, and no others;
    the value sees the whole board."""
    torch.manual_seed(0)
    shape, kinds = (3, 5, 7), 2
    policy = board_policy(shape, kinds * 35, shared=shared, channels=16)
    empty, piece = torch.zeros(1, *shape), torch.zeros(1, *shape)
    piece[0, 1, 2, 3] = 1
    with torch.no_grad():
        logits = [policy.action_net(policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x))).view(kinds, 5, 7)
                  for x in (empty, piece)]
        values = [policy.predict_values(x) for x in (empty, piece)]
    changed = (logits[0] != logits[1]).any(dim=0)
    expected = torch.zeros(5, 7, dtype=torch.bool)
    expected[1:4, 2:5] = True
    assert not (changed & ~expected).any() and changed.sum() >= 6
    assert (logits[0] != logits[1])[:, 2, 3].all()  # every kind of move on the cell
    assert not torch.equal(*values)


def test_board_policy_refuses_actions_that_are_not_cells():
    with pytest.raises(ValueError, match="needs k moves per cell of the 5 x 7 board; the game has 36 actions"):
        board_policy((3, 5, 7), 36)


def test_board_policy_starts_near_uniform_and_learns():
    """SB3's small first logits (gain 0.01), and the optimizer reaches every layer."""
    torch.manual_seed(0)
    policy = board_policy((5, 11, 16), 176, blocks=1)
    x = torch.rand(8, 5, 11, 16).round()
    with torch.no_grad():
        probs = policy.get_distribution(x).distribution.probs
    assert float(probs.max()) < 2.0 / 176
    optimized = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert optimized == {id(p) for p in policy.parameters()}
    assert not any(isinstance(m, torch.nn.Linear) and m.out_features == 176 for m in policy.modules())


def test_bfloat16_trunk_computes_the_float32_trunk_within_its_precision():
    """The same weights under bfloat16 autocast: float32 maps out, within bfloat16's
    8-bit mantissa of the float32 ones, and float32 gradients for every weight."""
    torch.manual_seed(0)
    space = spaces.Box(0, 1, (5, 11, 16), dtype=np.float32)
    exact, mixed = BoardTrunk(space, channels=16, blocks=2), BoardTrunk(space, channels=16, blocks=2, precision="bfloat16")
    mixed.load_state_dict(exact.state_dict())
    x = torch.rand(32, 5, 11, 16).round()
    want, got = exact(x), mixed(x)
    assert got.dtype == torch.float32 and got.shape == want.shape
    assert torch.allclose(got, want, rtol=0.05, atol=0.05 * float(want.detach().abs().max()))
    assert not torch.equal(got, want)  # it did compute in bfloat16
    got.sum().backward()
    assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in mixed.parameters())


def test_precision_is_the_board_policys_only():
    with pytest.raises(ValueError, match="precision must be one of \\['float32', 'bfloat16'\\], got 'half'"):
        BoardTrunk(spaces.Box(0, 1, (3, 5, 7), dtype=np.float32), precision="half")
    with pytest.raises(ValueError, match="precision 'bfloat16' is for the board policy"):
        ppo_policy("mlp", [16], {"channels": 4, "blocks": 0}, precision="bfloat16")
    with pytest.raises(ValueError, match="precision 'bfloat16' is for the board policy"):
        ppo_policy("cnn", [16], {"channels": 4, "blocks": 0, "head_channels": 2, "features_dim": 8}, precision="bfloat16")
    policy, kwargs = ppo_policy("cnn", [16], {"channels": 4, "blocks": 0}, action_planes=1)
    assert "precision" not in kwargs["features_extractor_kwargs"]  # float32 model files stay as they were


# ----- line convolutions (ppo.cnn_lines) ------------------------------------------------------


def test_a_line_convolution_sees_its_cells_lines_and_nothing_else():
    """A cell's output moves when any cell up to ``reach`` away along its row, column or
    diagonals changes, and with no other cell: the four-in-a-row windows through it."""
    torch.manual_seed(0)
    conv, x = LineConv(2, 1, 3), torch.zeros(1, 2, 12, 8)
    base = conv(x)[0, 0, 5, 4]

    def moves(row: int, column: int) -> bool:
        y = x.clone()
        y[0, 1, row, column] = 1.0
        return not torch.isclose(conv(y)[0, 0, 5, 4], base)

    on_lines = {(5 + k * dr, 4 + k * dc) for dr, dc in LineConv.DIRECTIONS for k in range(-3, 4)}
    on_lines = {(r, c) for r, c in on_lines if 0 <= r < 12 and 0 <= c < 8}
    assert len(on_lines) == 25  # the cell and six along each of its four lines, all on the board here
    assert all(moves(r, c) for r, c in on_lines)
    assert not any(moves(r, c) for r in range(12) for c in range(8) if (r, c) not in on_lines)
    with pytest.raises(ValueError, match="a line convolution needs a reach of at least 1 cell, got 0"):
        LineConv(2, 1, 0)


def test_line_blocks_train_save_and_load_and_older_files_keep_3x3_blocks(tmp_path):
    config = TrainConfig(game="double_card", opponents=["random"], timesteps=64, n_envs=2, eval_every=64, eval_games=2,
                         eval_opponents=["random"], cnn_channels=4, cnn_blocks=2,
                         ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "cnn_lines": 3})
    Trainer(config, tmp_path / "run", progress=False, log=lambda _: None).run()
    agent = make_from_spec(f"ppo:{RunFiles(tmp_path / 'run').best}", load_game("double_card"), seed=0)
    blocks = list(agent.actor.model.policy.features_extractor.trunk[0])[2:]
    assert len(blocks) == 2 and all(isinstance(block, LineBlock) and block.conv1.reach == 3 for block in blocks)
    _, kwargs = ppo_policy("cnn", [16], {"channels": 4, "blocks": 1, "lines": 0}, action_planes=1)
    assert "lines" not in kwargs["features_extractor_kwargs"]  # 3x3 model files stay as they were
    with pytest.raises(ValueError, match="cnn_lines=3 needs the board policy"):
        ppo_policy("cnn", [16], {"channels": 4, "blocks": 0, "lines": 3})


def test_a_line_convolution_is_its_parts_in_one_kernel():
    """The layer adds its row, column and diagonal weights into one kernel: the same map
    as the three convolutions applied one by one, the diagonals' weights counted only on
    their diagonals (so the model files saved before play as they did), and zero off the
    four lines."""
    torch.manual_seed(3)
    conv, x = LineConv(4, 5, 2), torch.randn(2, 4, 12, 8)
    eye, pad = torch.eye(5), torch.nn.functional.pad
    diagonals = conv.diagonals.weight
    by_parts = (conv.row(x) + conv.column(x)
                + torch.nn.functional.conv2d(x, diagonals[:5] * eye, padding=2)
                + torch.nn.functional.conv2d(x, diagonals[5:] * eye.flip(1), padding=2))
    assert torch.allclose(conv(x), by_parts, atol=1e-5)
    lines = (eye + eye.flip(1) + pad(torch.ones(1, 5), (0, 0, 2, 2)) + pad(torch.ones(5, 1), (2, 2, 0, 0))) > 0
    kernel = conv.kernel()
    assert kernel.shape == (5, 4, 5, 5) and int(lines.sum()) == 17
    assert torch.count_nonzero(kernel[..., ~lines]) == 0 and torch.count_nonzero(kernel[..., lines]) == kernel[..., lines].numel()


def test_a_line_convolution_keeps_its_kernel_only_while_its_weights_stay():
    """Without gradients the layer reuses the kernel it built, and builds it again once an
    optimiser's step or a load has changed its weights: its output is always the one the
    current weights give, with gradients (the kernel built in the graph) or without."""
    torch.manual_seed(5)
    conv, x = LineConv(3, 4, 2), torch.randn(2, 3, 12, 8)

    def fresh() -> torch.Tensor:
        return torch.nn.functional.conv2d(x, conv.kernel().detach(), conv.row.bias.detach(), padding=2)

    with torch.no_grad():
        first = conv(x)
        assert torch.equal(first, conv(x)) and torch.allclose(first, fresh(), atol=1e-6)
    optimiser = torch.optim.Adam(conv.parameters(), lr=0.1)
    conv(x).square().mean().backward()  # the kernel in the graph: the parts get gradients
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in conv.parameters())
    optimiser.step()
    with torch.no_grad():
        stepped = conv(x)
    assert not torch.allclose(stepped, first, atol=1e-3) and torch.allclose(stepped, fresh(), atol=1e-6)
    other = LineConv(3, 4, 2)
    conv.load_state_dict(other.state_dict())
    with torch.no_grad():
        assert torch.allclose(conv(x), other(x), atol=1e-6)


def test_a_line_convolution_stores_zeros_off_its_lines_and_zeroing_them_changes_nothing():
    """The diagonal pair's weights off the diagonals never count: a new layer holds zeros
    there (so model files deflate), and zeroing them in a layer that holds other values
    (a model made before) leaves its map as it was."""
    torch.manual_seed(7)
    conv, x = LineConv(3, 4, 2), torch.randn(2, 3, 12, 8)
    eye = torch.eye(5)
    off = ~((eye + eye.flip(1)) > 0)
    assert torch.count_nonzero(conv.diagonals.weight[..., off]) == 0
    with torch.no_grad():
        conv.diagonals.weight.add_(torch.randn_like(conv.diagonals.weight))
        before = conv(x)
        conv.zero_off_lines()
        assert torch.count_nonzero(conv.diagonals.weight[..., off]) == 0
        assert torch.allclose(conv(x), before, atol=1e-6)
