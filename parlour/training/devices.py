"""Where torch runs a learner's network: ``TrainConfig.device`` made concrete."""

from __future__ import annotations


def resolve_device(name: str) -> str:
    """``"cpu"`` or ``"cuda"`` for a ``device`` setting (``auto``: ``cuda`` when torch sees
    a GPU); ``ValueError`` for ``cuda`` on a machine where torch sees none.  Without torch
    (a learner that needs none, the n-tuple's: numpy only) ``auto`` is ``cpu``."""
    if name not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {name!r}")
    try:
        import torch
    except ImportError:
        if name == "cuda":
            raise ValueError("device 'cuda': torch is not installed (pip install 'parlour[train]')") from None
        return "cpu"

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda': torch sees no GPU here (torch.cuda.is_available() is False); "
                         "use device 'cpu', or 'auto' to take a GPU only when there is one")
    return name
